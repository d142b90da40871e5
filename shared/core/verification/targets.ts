import { withBoundDetail } from "../../lib/text/boundDetail.js";
import type { ProbeResult } from "../ports/probes.js";
import type { NamedEndpoint } from "./endpoint.js";
import { ctHashesOf } from "./inventoryResult.js";
import { type AcceptedRenewal, judge, STATUSES, type VerifyStatus } from "./judge.js";
import type { VaultVersion } from "./syncCheck.js";
import type { VerifySettings } from "./verifySettings.js";

/** One result of `certsched verify` (the --json document's `results`, docs/verification.md). */
export interface VerifyResult {
  readonly domain: string;
  readonly certificateName?: string;
  readonly source: "tls";
  readonly servedNotAfter?: string;
  readonly daysLeft?: number;
  readonly status: VerifyStatus;
  /** Present (true) only for a critically `expiring` certificate. */
  readonly critical?: true;
  readonly issuer?: string;
  readonly serial?: string;
  readonly thumbprint?: string;
  /** The served certificate's Certificate Transparency hashes (64 lower-case hex). */
  readonly pubkeySha256?: string;
  readonly tbsSha256?: string;
  readonly detail: string;
}

/** One endpoint to check, and what certsched knows about its certificate. */
export interface VerifyTarget {
  readonly endpoint: NamedEndpoint;
  readonly certificateName?: string;
  readonly renewal?: AcceptedRenewal;
  /** The name came from the service: probed only at a public address (ProbeOptions.publicOnly). */
  readonly publicOnly?: boolean;
  /** The vault's current version of the certificate it serves (syncCheck.ts); unset: none. */
  readonly vault?: VaultVersion | undefined;
}

/** What judging a target's probe needs: the settings it is judged by, and the clock. */
export interface JudgeTargetOptions {
  readonly settings: Pick<VerifySettings, "warnDays" | "windowMs"> &
    Partial<Pick<VerifySettings, "syncWindowMs">>;
  readonly now: () => Date;
}

/** The result for one target's probe; the clock is read now. */
export function judgeTarget(
  target: VerifyTarget,
  probe: ProbeResult,
  options: JudgeTargetOptions,
): VerifyResult {
  // The clock is read after the probe: daysLeft is about the moment the certificate was seen.
  const verdict = judge(target.endpoint, probe, {
    now: options.now(),
    warnDays: options.settings.warnDays,
    windowMs: options.settings.windowMs,
    renewal: target.renewal,
    vault: target.vault,
    syncWindowMs: options.settings.syncWindowMs,
  });
  const { critical, ...rest } = verdict;
  return withBoundDetail({
    domain: target.endpoint.label,
    ...(target.certificateName === undefined ? {} : { certificateName: target.certificateName }),
    source: "tls" as const,
    ...rest,
    ...(critical ? { critical: true as const } : {}),
    ...(probe.reached ? ctHashesOf(probe.certificate) : {}),
  });
}

/** Every status that occurs, with its count, in the contract's order. */
export function countStatuses(
  results: readonly VerifyResult[],
): Partial<Record<VerifyStatus, number>> {
  const counts: Partial<Record<VerifyStatus, number>> = {};
  for (const status of STATUSES) {
    const n = results.filter((r) => r.status === status).length;
    if (n > 0) counts[status] = n;
  }
  return counts;
}

/** Statuses that always need a person (exit 1, the timer run fails). */
const BAD: ReadonlySet<VerifyStatus> = new Set([
  "incomplete-chain",
  "untrusted",
  "mismatch",
  "weak",
  "too-long",
  "expired",
  "not-landed",
  "not-synced",
]);

/**
 * Whether a result needs a person now. `unreachable` waits out its grace
 * (CERTSCHED_VERIFY_UNREACHABLE_AFTER since the first failed attempt on record); with no record,
 * as for `verify --domain`, there is no grace.
 */
export function needsAttention(
  result: Pick<VerifyResult, "status" | "critical">,
  unreachableWithinGrace = false,
): boolean {
  if (BAD.has(result.status)) return true;
  if (result.status === "expiring") return result.critical === true;
  if (result.status === "unreachable") return !unreachableWithinGrace;
  return false;
}
