import type { PreflightProbes } from "../../core/ports/preflightProbes.js";
import type { PreflightCheck } from "../../core/preflight/preflight.js";
import type { PreflightSettings } from "../../core/preflight/preflightSettings.js";

import type { CheckSubject } from "../../core/preflight/subject.js";

export type { CheckSubject };

export interface CheckContext {
  readonly probes: PreflightProbes;
  readonly settings: PreflightSettings;
  readonly signal?: AbortSignal | undefined;
}

/** An ARM or vault refusal met while checking: what the `access` check reports. */
export interface Refusal {
  readonly status: 401 | 403;
  readonly detail: string;
}

/** One check's result, and what the `access` check needs to know of its ARM calls. */
export interface CheckOutcome {
  readonly check: PreflightCheck;
  /** ARM (or the vault) refused a call of this check. */
  readonly refused?: Refusal | undefined;
  /** This check made at least one ARM call that was answered (found or missing). */
  readonly armAnswered?: boolean | undefined;
}

/** The checks, as functions (preflightChecks/): injected so each is tested on its own. */
export interface PreflightCheckFunctions {
  caa(subject: CheckSubject, ctx: CheckContext): Promise<CheckOutcome>;
  dnsZone(
    subject: CheckSubject,
    ctx: CheckContext,
  ): Promise<
    CheckOutcome & { readonly zone?: { name: string; nameServers: readonly string[] } | undefined }
  >;
  delegation(
    subject: CheckSubject,
    ctx: CheckContext,
    zone: { name: string; nameServers: readonly string[] },
  ): Promise<CheckOutcome>;
  appBinding(subject: CheckSubject, ctx: CheckContext): Promise<CheckOutcome>;
  httpChallenge(subject: CheckSubject, ctx: CheckContext): Promise<CheckOutcome>;
  access(outcomes: readonly CheckOutcome[]): CheckOutcome;
}
