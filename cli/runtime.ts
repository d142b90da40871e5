import type { Seams } from "../shared/app/seams.js";
import { createRuntime, type Runtime } from "../shared/app/services.js";
import { noLedger } from "../shared/core/ports/ledger.js";
import { cliSettings, type Need } from "./config.js";
import { located } from "./failure.js";
import type { Io } from "./io.js";

/**
 * The runtime for one command that is not a sweep (no ledger needed), closed after `work`
 * whatever happens, so the process exits without waiting on idle sockets. `needs` are the
 * settings the command needs beyond the common ones, reported with them in one message. A
 * failure carries the settings it happened under, so its report can say where it looked.
 */
export function withRuntime<T>(
  io: Io,
  needs: readonly Need[],
  work: (runtime: Runtime) => Promise<T>,
): Promise<T> {
  return runWith(io, needs, { ledger: noLedger }, work);
}

/** Builds the runtime with `overrides`, runs `work`, always closes it, locates failures. */
export async function runWith<T>(
  io: Io,
  needs: readonly Need[],
  overrides: Seams,
  work: (runtime: Runtime) => Promise<T>,
): Promise<T> {
  const runtime = createRuntime(await cliSettings(io, needs), {
    requestTrigger: "cli",
    ...overrides,
  });
  try {
    return await work(runtime);
  } catch (error) {
    throw located(error, runtime.settings);
  } finally {
    await runtime.close();
  }
}
