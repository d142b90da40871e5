/**
 * Operator sandbox: `node dist/sim/main.js [--port N]` starts one simulator per sandbox account
 * ("contoso", "fabrikam"), each with its own throwaway credentials and sample certificates,
 * prints the settings that point certsched at both (CERTSCHED_ACCOUNTS) and runs until SIGINT
 * or SIGTERM. `--port` is the first account's simulator's; the others take free ones.
 */
import { sandboxAccounts, sandboxAccountsSettings } from "./sandbox.js";
import { stageNotSynced } from "./sandboxSync.js";
import { startSimulator } from "./server.js";
import type { Simulator } from "./simulator.js";

function parsePort(args: string[]): number {
  const at = args.findIndex((a) => a === "--port" || a.startsWith("--port="));
  if (at < 0) return 0;
  const arg = args[at] ?? "";
  const raw = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : args[at + 1];
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port needs a number in 0..65535, got ${raw ?? "nothing"}`);
  }
  return port;
}

async function main(): Promise<void> {
  const port = parsePort(process.argv.slice(2));
  const accounts: { name: string; sim: Simulator }[] = [];
  const stop = () => {
    Promise.all(accounts.map((a) => a.sim.close())).catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
  };
  try {
    for (const [index, spec] of sandboxAccounts(new Date()).entries()) {
      const sim = await startSimulator({ ...spec.options, port: index === 0 ? port : 0 });
      stageNotSynced(sim);
      accounts.push({ name: spec.name, sim });
    }
  } catch (error) {
    stop();
    throw error;
  }
  for (const { name, sim } of accounts) {
    console.log(
      `Certificate Scheduling Service simulator of account ${name} listening on ${sim.baseUrl}`,
    );
  }
  for (const [name, value] of Object.entries(sandboxAccountsSettings(accounts))) {
    console.log(`${name}=${value}`);
  }
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
