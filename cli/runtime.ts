import { noLedger } from "../shared/ledger/ledger.js";
import { createRuntime, type Runtime } from "../shared/runtime.js";
import { cliSettings } from "./config.js";
import type { Io } from "./io.js";

/**
 * The runtime for one command that is not a sweep (no ledger needed), closed after `work`
 * whatever happens, so the process exits without waiting on idle sockets.
 */
export async function withRuntime<T>(io: Io, work: (runtime: Runtime) => Promise<T>): Promise<T> {
  const runtime = createRuntime(await cliSettings(io), { ledger: noLedger });
  try {
    return await work(runtime);
  } finally {
    await runtime.close();
  }
}
