import { ensureError } from "../../lib/errors.js";
import { redact } from "../../lib/redact/redact.js";
import type { Telemetry } from "../ports/telemetry.js";

/** A flush that has not finished by then is left to run on: the sweep's answer matters more (10 s). */
export const FLUSH_TIMEOUT_MS = 10_000;

/**
 * Telemetry that can never break a sweep: every failure of the wrapped telemetry is reported
 * through `warn` and swallowed, and the sweep runs (once) whether or not its span could start.
 */
export function guardedTelemetry(
  telemetry: Telemetry,
  warn: (message: string) => void,
  flushTimeoutMs = FLUSH_TIMEOUT_MS,
): Telemetry {
  const report = (what: string, error: unknown) =>
    warn(`certsched telemetry ${what} failed, continuing: ${redact(ensureError(error).message)}`);
  return {
    async inSweepSpan(run, parent) {
      let ran: ReturnType<typeof run> | undefined;
      try {
        return await telemetry.inSweepSpan(() => {
          ran = run();
          return ran;
        }, parent);
      } catch (error) {
        if (ran === undefined) {
          report("span", error);
          return run();
        }
        // The sweep's own failure propagates as it is; a failure after it is only reported.
        const summary = await ran;
        report("span", error);
        return summary;
      }
    },
    recordSweep(summary) {
      try {
        telemetry.recordSweep(summary);
      } catch (error) {
        report("recording", error);
      }
    },
    recordVerification(verification, options) {
      try {
        telemetry.recordVerification(verification, options);
      } catch (error) {
        report("recording", error);
      }
    },
    recordCall(upstream, durationMs, status) {
      try {
        telemetry.recordCall(upstream, durationMs, status);
      } catch (error) {
        report("recording", error);
      }
    },
    async flush() {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), flushTimeoutMs);
        timer.unref();
      });
      try {
        const result = await Promise.race([telemetry.flush().then(() => "done" as const), timeout]);
        if (result === "timeout")
          warn(`certsched telemetry flush took over ${flushTimeoutMs} ms; not waiting`);
      } catch (error) {
        report("flush", error);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
