import { noTelemetry, type Telemetry } from "../../core/ports/telemetry.js";
import { guardedTelemetry } from "../../core/telemetry/guardedTelemetry.js";
import { ensureError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { redact } from "../../lib/redact/redact.js";

/** A sweep's telemetry: it never fails the sweep (every failure is a warning). */
export type SweepTelemetry = Telemetry;

/**
 * The telemetry, started on first call, guarded; none (with a warning) when it cannot start:
 * never a failed sweep.
 */
export async function sweepTelemetry(
  ports: { telemetry(): Promise<Telemetry> },
  log: Logger,
): Promise<SweepTelemetry> {
  let started: Telemetry;
  try {
    started = await ports.telemetry();
  } catch (error) {
    log.warn(
      `certsched telemetry could not start, sweeping without it: ${redact(ensureError(error).message)}`,
    );
    started = noTelemetry;
  }
  return guardedTelemetry(started, (m) => log.warn(m));
}
