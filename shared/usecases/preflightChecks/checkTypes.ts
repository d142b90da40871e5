import type { PreflightProbes, SiteRef } from "../../core/ports/preflightProbes.js";
import type { PreflightCheck } from "../../core/preflight/preflight.js";
import type { PreflightSettings } from "../../core/preflight/preflightSettings.js";

/**
 * What the checks know of one certificate (from the inventory, or the due list's record). Every
 * field but the names may be missing: a check that needs one reports `unknown`, naming it.
 */
export interface CheckSubject {
  readonly certificateName: string;
  /** Lower case, without a trailing dot; a wildcard keeps its `*.`. */
  readonly rootDomain: string;
  /** `http` or `dns` as the service said it (compare case-insensitively). */
  readonly challengeType?: string | undefined;
  /** `Cloud App Service` or `Cloud Key Vault + DNS` as the service said it. */
  readonly target?: string | undefined;
  readonly cloudSubscriptionId?: string | undefined;
  readonly dnsZoneResourceGroup?: string | undefined;
  /** The app from the create request; undefined when certsched does not know it (due list). */
  readonly site?: SiteRef | undefined;
}

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
