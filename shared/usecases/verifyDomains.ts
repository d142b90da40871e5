import type { ProbeOptions, ProbeResult, Probes } from "../core/ports/probes.js";
import { judgeTarget, type VerifyResult, type VerifyTarget } from "../core/verification/targets.js";
import type { VerifySettings } from "../core/verification/verifySettings.js";

/**
 * `certsched verify --domain` (and each TLS check of a verification run): the targets probed
 * through the Probes port, judged by core/verification/targets.ts.
 */

export interface VerifyOptions {
  /** The TLS probe (adapters/probes/tlsProbe.ts, wired by the caller). */
  readonly probes: Pick<Probes, "tls">;
  readonly settings: Pick<VerifySettings, "connectTo" | "warnDays" | "windowMs" | "timeoutMs"> &
    Partial<Pick<VerifySettings, "extraCaCertsPath">>;
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
    ...(options.settings.extraCaCertsPath
      ? { extraCaCertsPath: options.settings.extraCaCertsPath }
      : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(target.publicOnly ? { publicOnly: true } : {}),
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
