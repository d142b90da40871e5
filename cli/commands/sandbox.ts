import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CliFailure } from "../../shared/lib/errors.js";
import type { Command } from "../command.js";
import { EXIT } from "../failure.js";
import { palette } from "../output/color.js";
import { wrapToWidth } from "../output/text.js";
import { startSandbox } from "../sandbox.js";
import type { SandboxDashboard } from "../sandboxDashboard.js";
import { integerFlag } from "../usage.js";

const HELP = `Usage: certsched sandbox [--port N] [--dashboard]

Starts the built-in simulator of the Certificate Scheduling Service (and of the
identity provider's token endpoint), seeded with a dozen sample certificates,
and prints the settings that point certsched at it, one NAME=value per line on
stdout. Runs until interrupted (Ctrl+C, SIGINT or SIGTERM).

The simulator plays the hosting side too: a TLS endpoint on loopback serves
each App Service certificate for its domain, and a Key Vault on loopback holds
each Key Vault certificate (kv-certsched.vault.azure.net), all signed by a
throwaway CA. CERTSCHED_VERIFY_CONNECT_TO sends the vault's host to the vault
and every other domain to the endpoint (so no vault token leaves the machine),
and NODE_EXTRA_CA_CERTS names the CA's PEM file (removed when the sandbox
stops), so "certsched verify" sees what the simulator serves and holds.
shop-contoso-com keeps its old certificate after a renewal, on purpose: verify
says not-landed once the window passed.

The printed credentials are the simulator's own throwaway values, not secrets
of any account. Use them from another shell, for example:
  env CERTSCHED_BASE_URL=... CERTSCHED_...=... certsched due
or put them in the "Values" of local.settings.json to run the function app
against it.

With --dashboard, it first runs one sweep and one verification of the sample
certificates (in memory), then serves the function app's dashboard page
(GET /api/dashboard) on a loopback port and prints its URL, with a throwaway
function key as ?code=.

Options:
  --port N       Port to listen on (default: a free one).
  --dashboard    Also serve the dashboard page on 127.0.0.1 (a free port).
  -h, --help     Show this help.

Exit codes: 0 stopped by a signal; 1 the simulator could not start (the port is
in use, say); 2 usage error.
`;

/**
 * The hosting endpoint's CA as a PEM file, for NODE_EXTRA_CA_CERTS: Node reads that setting
 * from a file, once, when a process starts, so a `certsched verify` run from another shell
 * needs a path. A directory of its own, readable by this user only.
 */
async function writeCaFile(pem: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "certsched-sandbox-"));
  const path = join(dir, "sandbox-ca.pem");
  await writeFile(path, pem, { mode: 0o600 });
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Why the simulator could not listen, in words: "port 8080 is already in use", not a stack. */
function listenFailure(error: unknown, port: number | undefined): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === "EADDRINUSE") {
    return new CliFailure(
      "PORT_IN_USE",
      `port ${port} is already in use: stop what listens there, choose another --port, or leave --port out for a free one`,
      EXIT.failed,
    );
  }
  if (code === "EACCES") {
    return new CliFailure(
      "PORT_NOT_ALLOWED",
      `port ${port} needs privileges this user lacks: choose a port above 1023`,
      EXIT.failed,
    );
  }
  return error;
}

export const sandboxCommand: Command = {
  name: "sandbox",
  help: HELP,
  options: { port: { type: "string" }, dashboard: { type: "boolean" } },
  maxPositionals: 0,
  run: async (args, io) => {
    const port = integerFlag("sandbox", "--port", args.values.port, 0, 65535);
    const sandbox = await startSandbox(port === undefined ? {} : { port }).catch(
      (error: unknown) => {
        throw listenFailure(error, port);
      },
    );
    let caFile: { path: string; remove: () => Promise<void> };
    try {
      caFile = await writeCaFile(sandbox.hosting.caPem);
    } catch (error) {
      await sandbox.close();
      throw error;
    }
    const paint = palette(io.stderr, io.env);
    const banner = [
      paint.bold("=== certsched SANDBOX ==="),
      `A simulator of the Certificate Scheduling Service is listening on ${sandbox.sim.baseUrl} with ${sandbox.sim.certificates().length} sample certificates. No real account is involved.`,
      `Its hosting side serves the App Service certificates over TLS on ${sandbox.hosting.host}:${sandbox.hosting.port}, signed by a throwaway CA (NODE_EXTRA_CA_CERTS below).`,
      `Its Key Vault holds the Key Vault certificates on ${sandbox.hosting.vault.host}:${sandbox.hosting.vault.port} (CERTSCHED_VERIFY_CONNECT_TO sends each vault's host there; nothing goes to Azure).`,
      "These settings point certsched at it (the simulator's own throwaway credentials):",
      "",
    ].flatMap((line) => wrapToWidth(line, io.stderr.columns ?? 80));
    io.stderr.write(banner.join("\n"));
    const settings = Object.entries({
      ...sandbox.settings,
      NODE_EXTRA_CA_CERTS: caFile.path,
    }).map(([name, value]) => `${name}=${value}`);
    io.stdout.write(`${settings.join("\n")}\n`);
    let dashboard: SandboxDashboard | undefined;
    if (args.values.dashboard === true) {
      // Loaded only when asked for: the function app's page and its server are not small.
      const { serveSandboxDashboard } = await import("../sandboxDashboard.js");
      dashboard = await serveSandboxDashboard(sandbox).catch(async (error: unknown) => {
        await sandbox.close();
        await caFile.remove();
        throw error;
      });
      io.stderr.write(`\nDashboard (after one sweep and one verification): ${dashboard.url}\n`);
    }
    io.stderr.write("\nPress Ctrl+C to stop.\n");
    const signal = await io.untilInterrupted();
    try {
      await dashboard?.close();
      await sandbox.close();
    } finally {
      await caFile.remove();
    }
    io.stderr.write(`certsched sandbox stopped (${signal}).\n`);
    return EXIT.ok;
  },
};
