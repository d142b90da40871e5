import type { SweepSummary } from "../shared/sweep/summary.js";
import type { Simulator } from "../sim/index.js";
import {
  SAMPLE_REFUSAL,
  SANDBOX_CREDENTIALS,
  sampleCertificates,
  sandboxSettings,
  startSimulator,
} from "../sim/index.js";
import type { Palette } from "./output/color.js";

/** The built-in simulator, seeded with the sample certificates, and the settings that reach it. */
export interface Sandbox {
  readonly sim: Simulator;
  /** CERTSCHED_* settings pointing at the simulator (its own throwaway credentials). */
  readonly settings: Record<string, string>;
  close(): Promise<void>;
}

export async function startSandbox(options: { port?: number } = {}): Promise<Sandbox> {
  const sim = await startSimulator({
    ...SANDBOX_CREDENTIALS,
    certificates: sampleCertificates(new Date()),
    ...(options.port === undefined ? {} : { port: options.port }),
  });
  return { sim, settings: sandboxSettings(sim), close: () => sim.close() };
}

/**
 * The paragraphs that say plainly this is not a real account, and how to reach the real one;
 * the caller wraps them to the terminal.
 */
export function sandboxBanner(sandbox: Sandbox, paint: Palette): string[] {
  const count = sandbox.sim.certificates().length;
  return [
    paint.bold("=== certsched SANDBOX ==="),
    `This is the sandbox: a built-in simulator of the Certificate Scheduling Service at ${sandbox.sim.baseUrl}, seeded with ${count} sample certificates. No real account is touched.`,
    'To use the real service, set CERTSCHED_BASE_URL, CERTSCHED_SUBSCRIPTION, CERTSCHED_TENANT_ID, CERTSCHED_CLIENT_ID and CERTSCHED_CLIENT_SECRET (or CERTSCHED_KEY_VAULT_URL) in the environment or in the "Values" of local.settings.json, then run: npx certsched sweep',
    "(npm start sweeps the real service when CERTSCHED_BASE_URL is set.) See docs/cli.md.",
    "",
  ];
}

/** Names of the certificates whose failure the sandbox stages on purpose. */
export function stagedFailures(summary: SweepSummary): string[] {
  return summary.results
    .filter((r) => r.outcome === "failed" && r.detail.includes(SAMPLE_REFUSAL))
    .map((r) => r.certificateName);
}

/**
 * True when a failed sandbox sweep failed only because of the staged refusal: that is the
 * demo working. Anything else (a list failure, another failure, a stuck certificate) is real.
 */
export function onlyStagedFailures(summary: SweepSummary): boolean {
  const staged = stagedFailures(summary).length;
  return (
    summary.listError === undefined &&
    summary.rejected.length === 0 &&
    summary.ledger !== "unavailable" &&
    summary.counts.stuck === 0 &&
    summary.counts.failed === staged
  );
}
