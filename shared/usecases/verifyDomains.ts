import type { ProbeOptions, ProbeResult, Probes } from "../core/ports/probes.js";
import type { NamedEndpoint } from "../core/verification/endpoint.js";
import {
  type AcceptedRenewal,
  judge,
  STATUSES,
  type VerifyStatus,
} from "../core/verification/judge.js";
import type { VerifySettings } from "../core/verification/verifySettings.js";
import { withBoundDetail } from "../lib/text/boundDetail.js";

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
  readonly detail: string;
}

/** One endpoint to check, and what certsched knows about its certificate. */
export interface VerifyTarget {
  readonly endpoint: NamedEndpoint;
  readonly certificateName?: string;
  readonly renewal?: AcceptedRenewal;
  /** The name came from the service: probed only at a public address (ProbeOptions.publicOnly). */
  readonly publicOnly?: boolean;
}

export interface VerifyOptions {
  /** The TLS probe (adapters/probes/tlsProbe.ts, wired by the caller). */
  readonly probes: Pick<Probes, "tls">;
  readonly settings: Pick<VerifySettings, "connectTo" | "warnDays" | "windowMs" | "timeoutMs">;
  readonly now: () => Date;
  /** Trusted certificates instead of Node's default store (tests). */
  readonly ca?: ProbeOptions["ca"];
  /** Probes at a time. Default 16: handshakes wait on the network, not on the CPU. */
  readonly concurrency?: number;
  readonly signal?: AbortSignal;
}

/** Reads what one target serves. Never throws. */
export function probeTarget(target: VerifyTarget, options: VerifyOptions): Promise<ProbeResult> {
  return options.probes.tls(target.endpoint, {
    connectTo: options.settings.connectTo,
    timeoutMs: options.settings.timeoutMs,
    ...(options.ca ? { ca: options.ca } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(target.publicOnly ? { publicOnly: true } : {}),
  });
}

/** The result for one target's probe; the clock is read now. */
export function judgeTarget(
  target: VerifyTarget,
  probe: ProbeResult,
  options: VerifyOptions,
): VerifyResult {
  // The clock is read after the probe: daysLeft is about the moment the certificate was seen.
  const verdict = judge(target.endpoint, probe, {
    now: options.now(),
    warnDays: options.settings.warnDays,
    windowMs: options.settings.windowMs,
    renewal: target.renewal,
  });
  const { critical, ...rest } = verdict;
  return withBoundDetail({
    domain: target.endpoint.label,
    ...(target.certificateName === undefined ? {} : { certificateName: target.certificateName }),
    source: "tls" as const,
    ...rest,
    ...(critical ? { critical: true as const } : {}),
  });
}

async function verifyOne(target: VerifyTarget, options: VerifyOptions): Promise<VerifyResult> {
  return judgeTarget(target, await probeTarget(target, options), options);
}

/** Verifies every target with bounded concurrency; results in the targets' order. */
export async function verifyTargets(
  targets: readonly VerifyTarget[],
  options: VerifyOptions,
): Promise<VerifyResult[]> {
  const results: VerifyResult[] = new Array(targets.length);
  let next = 0;
  const worker = async () => {
    while (next < targets.length) {
      const i = next++;
      results[i] = await verifyOne(targets[i] as VerifyTarget, options);
    }
  };
  const width = Math.max(1, Math.min(options.concurrency ?? 16, targets.length));
  await Promise.all(Array.from({ length: width }, worker));
  return results;
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
const BAD: ReadonlySet<VerifyStatus> = new Set(["not-landed", "expired", "mismatch", "untrusted"]);

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
