/**
 * Operator sandbox: `node dist/sim/main.js [--port N]` starts a simulator with the sample
 * certificates, prints the settings that point at it and runs until SIGINT or SIGTERM.
 */
import { sampleCertificates } from "./sampleCertificates.js";
import { sandboxSettings } from "./sandbox.js";
import { startSimulator } from "./server.js";

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
  const sim = await startSimulator({
    port: parsePort(process.argv.slice(2)),
    certificates: sampleCertificates(new Date()),
  });
  console.log(`Certificate Scheduling Service simulator listening on ${sim.baseUrl}`);
  for (const [name, value] of Object.entries(sandboxSettings(sim))) {
    console.log(`${name}=${value}`);
  }
  const stop = () => {
    sim.close().catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
