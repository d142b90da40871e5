import { type AriRecord, windowStarted } from "../../core/ari/ariRecord.js";
import type { Ledger } from "../../core/ports/ledger.js";
import { QuotaExhaustedError } from "../../core/quota/budgetRules.js";
import type { Requester } from "../../core/renewal/requester.js";
import { windowNote } from "../../core/renewal/windowNote.js";
import { isWatch } from "../../core/verification/plan.js";
import type { RenewalCalendar } from "../../core/windows/calendar.js";
import { AccountCalendar } from "../../core/windows/timing.js";
import { ensureError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { mapWithConcurrency } from "../../lib/pool.js";
import { redact } from "../../lib/redact/redact.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { type RenewByNamePorts, renewByName } from "../renewByName.js";
import type { AriReading } from "./askAri.js";
import { blockedByPreflight } from "./preflightGate.js";

/**
 * The CA's word acted on (ARI): after a verification run, each certificate
 * whose suggested window has started is renewed now through the service (v3 renew by name,
 * within CERTSCHED_SERVICE_QUOTA, trigger `ari`), even when the service does not list it as due.
 * At most once per window: a renewal the ledger shows sent or accepted since the window's start
 * is not asked for again, and the ledger's claim keeps two processes from both asking.
 */

export type RenewForAriPorts = RenewByNamePorts & {
  readonly ledger: Pick<Ledger, "kind" | "read"> & RenewByNamePorts["ledger"];
  readonly settings: RenewByNamePorts["settings"] & {
    /**
     * CERTSCHED_RENEWAL_CONCURRENCY: renewals in flight at once, as the sweep's. A CA that
     * revokes en masse puts thousands of windows open at once; one at a time they would not
     * fit in a run.
     */
    readonly renewalConcurrency?: number | undefined;
    /** The account's renewal calendar: a disabled certificate is never sent, windows hold. */
    readonly renewalCalendar?: RenewalCalendar | undefined;
  };
  /** The renewal timer's next firing after a moment (CERTSCHED_RENEWAL_SCHEDULE), when known. */
  readonly renewalTimer?: ((after: Date) => Date | undefined) | undefined;
};

/** What became of one certificate whose window has started. */
export interface AriRenewal {
  readonly certificateName: string;
  /**
   * `scheduled`: the service accepted; `already`: the ledger shows it asked for since the window
   * started (or a sweep holds it); `blocked`: its last preflight blocks it; `quota`: the request
   * budget is spent (asked again on a later run); `failed`: the request failed; `disabled`: its
   * certificate policy says never renew it; `waiting`: outside its renewal windows, and the next
   * opening comes before the CA's window ends (asked again on a later run).
   */
  readonly outcome:
    | "scheduled"
    | "already"
    | "blocked"
    | "quota"
    | "failed"
    | "disabled"
    | "waiting";
  readonly detail: string;
}

export const ARI_REQUESTER = "ari";

/** The history's words for a window: dates, and the CA's explanation (http/https only). */
export function windowDetail(ari: AriRecord): string {
  const span = `${ari.start?.toISOString()}..${ari.end?.toISOString()}`;
  const url =
    ari.explanationUrl && /^https?:\/\//i.test(ari.explanationUrl) ? ari.explanationUrl : undefined;
  return `the CA's renewal window ${span} has started (ARI)${url ? `, explained at ${escapeControl(url)}` : ""}`;
}

/** Whether the ledger shows a request sent (or claimed) for it since `since`. */
async function askedSince(
  ledger: Pick<Ledger, "kind" | "read">,
  id: number | undefined,
  since: Date,
): Promise<boolean> {
  if (id === undefined || ledger.kind === "none") return false;
  const row = (await ledger.read(id))?.record;
  if (!row || row.outcome === "failed") return false;
  const at = row.lastRequestedAt ?? row.claimedAt;
  return at !== undefined && at.getTime() >= since.getTime();
}

/** What the calendar says of an ARI renewal: held (disabled), waiting, or sent outside (why). */
interface AriTiming {
  readonly held?: { readonly outcome: "disabled"; readonly detail: string };
  /** Outside its windows, the next opening before the CA's window ends: why it waits. */
  readonly waiting?: string;
  /** Sent outside its windows: why. */
  readonly outside?: string;
}

/**
 * What the account's renewal calendar says of a certificate whose ARI window has started: its
 * policy may disable it; outside its windows it waits for the next opening unless that comes
 * after the CA's window ends (the CA's word beats the calendar) or after its expiry's margin.
 */
function calendarSays(
  deps: RenewForAriPorts,
  record: AriReading["record"],
  ari: AriRecord,
  now: Date,
): AriTiming {
  const declared = deps.settings.renewalCalendar;
  if (!declared) return {};
  const calendar = new AccountCalendar(declared, deps.account ?? "default");
  if (!calendar.restricted) return {};
  const expiry = record.serviceExpiry ?? ari.end;
  if (!expiry) {
    const policy = calendar.policyOf(record.certificateName);
    return policy?.policy === "disabled"
      ? {
          held: {
            outcome: "disabled",
            detail: `disabled by its certificate policy (${policy.label}): never renewed`,
          },
        }
      : {};
  }
  const timing = calendar.timing(record.certificateName, {
    now,
    expiry,
    ariEnd: ari.end,
    ...(deps.renewalTimer ? { nextTick: deps.renewalTimer } : {}),
  });
  const note = windowNote(timing);
  if (!note) return {};
  if (timing.kind === "disabled") return { held: { outcome: "disabled", detail: note.detail } };
  if (timing.kind === "waiting") return { waiting: note.detail };
  // The calendar's words say why: the CA's window, or the expiry, comes first.
  return timing.kind === "outside" ? { outside: note.detail } : {};
}

/** One certificate whose window has started: asked for, unless done since. Never throws. */
async function renewOneForAri(
  deps: RenewForAriPorts,
  log: Logger,
  { record, ari }: AriReading & { readonly ari: { readonly start: Date } },
  now: Date,
): Promise<AriRenewal> {
  const name = record.certificateName;
  const because = windowDetail(ari);
  const done = (outcome: AriRenewal["outcome"], detail: string): AriRenewal => ({
    certificateName: name,
    outcome,
    detail,
  });
  try {
    if (await askedSince(deps.ledger, record.id, ari.start)) {
      return done("already", "renewal already asked for since the window started");
    }
    const timing = calendarSays(deps, record, ari, now);
    if (timing.held) {
      log.info(`certsched ARI: ${name}: ${because}, but not renewed: ${timing.held.detail}`);
      return done(timing.held.outcome, timing.held.detail);
    }
    const blockedBy = await blockedByPreflight(deps.inventory, name, now, log);
    if (blockedBy) {
      log.warn(
        `certsched ARI: ${name}: ${because}, but its last preflight blocks the renewal (${blockedBy})`,
      );
      return done("blocked", `not renewed: its last preflight blocks it (${blockedBy})`);
    }
    if (timing.waiting) {
      log.info(`certsched ARI: ${name}: ${because}, but not renewed yet: ${timing.waiting}`);
      return done("waiting", `not renewed yet: ${timing.waiting}; asked again on a later run`);
    }
    const requester: Requester = {
      trigger: "ari",
      by: ARI_REQUESTER,
      because: timing.outside ? `${because}; ${timing.outside}` : because,
    };
    const renewed = await renewByName(deps, name, requester, log);
    if (renewed.status === "scheduled") {
      log.info(
        `certsched ARI: renewing ${name}: ${because}; the service: ${redact(renewed.message)}`,
      );
      return done("scheduled", renewed.message);
    }
    const outcome = renewed.status === "in-progress" ? "already" : renewed.status;
    return done(outcome, renewed.message);
  } catch (error) {
    const message = redact(ensureError(error).message);
    if (error instanceof QuotaExhaustedError) {
      log.warn(`certsched ARI: ${name} not renewed (asked again on the next run): ${message}`);
      return done("quota", message);
    }
    log.warn(`certsched ARI: renewing ${name} failed: ${message}`);
    return done("failed", message);
  }
}

/**
 * Renews each certificate whose ARI window has started, CERTSCHED_RENEWAL_CONCURRENCY at a time
 * (one failing never stops the others), in the readings' order. Never throws.
 */
export async function renewForAri(
  deps: RenewForAriPorts,
  log: Logger,
  readings: readonly AriReading[],
): Promise<AriRenewal[]> {
  const now = deps.now();
  // A watched endpoint is not the service's certificate: nothing to renew by name.
  const open = readings.filter(
    (r): r is AriReading & { readonly ari: { readonly start: Date } } =>
      !isWatch(r.record) && windowStarted(r.ari, now) && r.ari.start !== undefined,
  );
  return mapWithConcurrency(open, deps.settings.renewalConcurrency ?? 1, (reading) =>
    renewOneForAri(deps, log, reading, deps.now()),
  );
}
