import type { ServedFacts } from "../verification/served.js";

/**
 * What the history holds: one event per thing that happened to a certificate, one record per
 * run. History only records; the ledger decides (nothing here is read back into a decision).
 */

/** What started a run or a request. */
/**
 * `ari`: a renewal the CA's renewal information asked for (ARI, RFC 9773). `event`: a Key Vault
 * event delivered by Event Grid, or a later check of the consumers it started.
 */
export type Trigger = "timer" | "http" | "cli" | "queue" | "ari" | "event";
export const TRIGGERS: readonly Trigger[] = ["timer", "http", "cli", "queue", "ari", "event"];

export type EventKind =
  /** A person asked for the renewal by name (`by` says who). */
  | "manual-request"
  /** A request went out and the service accepted it. */
  | "renewal-scheduled"
  /** A request went out and no answer came in time: the service may have scheduled it. */
  | "answer-unknown"
  /** The service refused, or the request failed before it could be acted on. */
  | "failed"
  /** Still due a day after the first request. */
  | "stuck"
  /** Not asked for: its last preflight says a person must fix something first. */
  | "blocked"
  /** Left alone this run (recently requested, another sweep holds it): `reason` says why. */
  | "skipped"
  /** The run stopped starting renewals (deadline, ledger) before this certificate. */
  | "not-attempted"
  /** Left for a later run because the service's request budget (CERTSCHED_SERVICE_QUOTA) ran out. */
  | "deferred"
  /** Not asked for: outside every renewal window of the certificate, or in a freeze. */
  | "waiting"
  /** Never asked for: its certificate policy is `disabled`. */
  | "disabled"
  /** A verification read the certificate where users look (`reason`: its status). */
  | "verified"
  /** A verification found the renewal has not landed after the window. */
  | "not-landed"
  /** A verification read a different certificate than before the renewal (`before`, `after`). */
  | "landed"
  /**
   * Certificate Transparency showed an issuance for a watched name that nothing certsched did
   * explains (`certificateName`: `ct:<watched name>`; `detail`: the issuance in words).
   */
  | "unexpected-issuance"
  /** A person acknowledged an unexpected issuance (`by`, and the reason in `detail`). */
  | "issuance-acknowledged"
  /**
   * A Key Vault event the vault confirmed, and what certsched did about it (`reason`: the
   * event's kind, `new-version`, `near-expiry` or `expired`; `detail`: the outcome in words).
   * A certificate certsched does not keep is named `vault:<vault>/<certificate>`.
   */
  | "vault-event"
  /** A Key Vault event about a certificate nothing will renew in time: an alert went out. */
  | "vault-expiry-alert";
export const EVENT_KINDS: readonly EventKind[] = [
  "manual-request",
  "renewal-scheduled",
  "answer-unknown",
  "failed",
  "stuck",
  "blocked",
  "skipped",
  "not-attempted",
  "deferred",
  "waiting",
  "disabled",
  "verified",
  "not-landed",
  "landed",
  "unexpected-issuance",
  "issuance-acknowledged",
  "vault-event",
  "vault-expiry-alert",
];

export interface CertificateEvent {
  readonly at: Date;
  readonly certificateName: string;
  /** The service's record id, when known. */
  readonly id?: number | undefined;
  readonly event: EventKind;
  readonly trigger: Trigger;
  /** The run this event belongs to (a manual request is a run of its own). */
  readonly runId: string;
  /** Who asked (manual requests): "function-key", "entra:<name> (<object id>)" or "cli". */
  readonly by?: string | undefined;
  /** Reason constant (decide.ts VerdictReason, summary.ts ResultReason, "ManualRequest"). */
  readonly reason?: string | undefined;
  /** Words: the service's answer or the failure's cause, redacted and shortened. */
  readonly detail?: string | undefined;
  /** Upstream HTTP status of a failure. */
  readonly status?: number | undefined;
  /** Error code of a failure (shared/lib/errors.ts). */
  readonly error?: string | undefined;
  /** Expiry as the service said when this happened. */
  readonly expiryDate?: Date | undefined;
  /**
   * What was served before the renewal (`renewal-scheduled`, `landed`) and after it (`landed`):
   * the receipt of the renewal.
   */
  readonly before?: ServedFacts | undefined;
  readonly after?: ServedFacts | undefined;
}

export interface RunRecord {
  readonly runId: string;
  readonly trigger: Trigger;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly dryRun: boolean;
  /** Forced past the last preflight (`--force`, `?force=true`). */
  readonly forced?: boolean | undefined;
  /** Whether the run must be reported failed (SweepSummary.failed). */
  readonly failed: boolean;
  /** Which ledger guarded the run ("table", "memory", "none", "unavailable"). */
  readonly ledger: string;
  /** Certificates per outcome, and `due`. */
  readonly counts: Readonly<Record<string, number>>;
  /** Why the run failed, one line each, redacted. */
  readonly problems: readonly string[];
  /**
   * The steps after the renewals this run did not finish inside its function timeout
   * (BookkeepingStep: "events", "request-count", "inventory", "verification", "telemetry").
   * The row is written before them, naming them all, and written again once they are over:
   * absent, every step was done.
   */
  readonly bookkeeping?: { readonly incomplete: readonly string[] } | undefined;
}
