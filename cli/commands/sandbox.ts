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

Starts the built-in simulators of the Certificate Scheduling Service (and of
the identity provider's token endpoint), one per account: "contoso" and
"fabrikam", two customers of one managed-service provider, each with its own
throwaway API key, tenant, app registration, subscription, Key Vault and sample
certificates (both hold a certificate named "wildcard"). It prints the settings
that point certsched at both, one NAME=value per line on stdout: the accounts
as CERTSCHED_ACCOUNTS (inline JSON), never the single-account settings. Runs
until interrupted (Ctrl+C, SIGINT or SIGTERM).

Each simulator plays the hosting side too: a TLS endpoint on loopback serves
each App Service certificate for its domain, and a Key Vault on loopback holds
each Key Vault certificate (kv-contoso.vault.azure.net,
kv-fabrikam.vault.azure.net), all signed by a throwaway CA per account; the
endpoint serves each Key Vault certificate's domain too, with the version its
consumer (an App Service, a gateway) has picked up from the vault.
CERTSCHED_VERIFY_CONNECT_TO sends each vault's host to its account's vault and
each domain to its account's endpoint (so no vault token leaves the machine),
and NODE_EXTRA_CA_CERTS names a PEM file with both CAs (removed when the
sandbox stops), so "certsched verify" sees what the simulators serve and hold.
shop-contoso-com keeps its old certificate after a renewal, on purpose: verify
says not-landed once the window passed. cdn.contoso.com still serves the
previous version of cdn-contoso-com, whose vault got a new one 30 hours ago,
on purpose: verify says not-synced (more than CERTSCHED_SYNC_WINDOW, 24 h).

It also plays what "certsched preflight" reads: an Azure Resource Manager over
TLS (CERTSCHED_ARM_URL, its CA in the same NODE_EXTRA_CA_CERTS file) with the
accounts' DNS zones and App Service apps, a DNS server (CERTSCHED_DNS_SERVERS)
and each App Service app's plain-HTTP challenge path. staging-contoso-com's
domain has a CAA record allowing another CA only, and intranet-contoso-com's
zone is not in its resource group: preflight says will-fail for both.

And the hosting CA's ACME directory with renewal information (ARI, RFC 9773):
CERTSCHED_ARI_DIRECTORIES names it (its CA in the same NODE_EXTRA_CA_CERTS
file). It knows no window until one is staged: verification asks it about every
certificate it reads, and renews one whose window has started (trigger ari).

The printed credentials are the simulators' own throwaway values, not secrets
of any account. Use them from another shell, for example:
  env CERTSCHED_ACCOUNTS='[...]' ... certsched due --account fabrikam
or put them in the "Values" of local.settings.json to run the function app
against them.

With --dashboard, it first runs one sweep and one verification of each
account's sample certificates (in memory), then serves the function app's
dashboard page (GET /api/dashboard) of each account on a loopback port and
prints their URLs, with a throwaway function key as ?code=.

Options:
  --port N       Port of the first account's simulator (default: a free one;
                 the other account's is always a free one).
  --dashboard    Also serve the dashboard pages on 127.0.0.1 (a free port).
  -h, --help     Show this help.

Exit codes: 0 stopped by a signal; 1 a simulator could not start (the port is
in use, say); 2 usage error.
`;

/**
 * The hosting endpoints' CAs as one PEM file, for NODE_EXTRA_CA_CERTS: Node reads that setting
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
      // The hosting endpoints' CAs, the CA of the sandbox's ARM (preflight) and of its ACME (ARI).
      caFile = await writeCaFile(
        [
          ...sandbox.accounts.map((a) => a.hosting.caPem),
          sandbox.preflight.caPem,
          sandbox.ari.caPem,
        ].join(""),
      );
    } catch (error) {
      await sandbox.close();
      throw error;
    }
    const paint = palette(io.stderr, io.env);
    const each = sandbox.accounts.map(
      (a) =>
        `${a.name}: ${a.sim.baseUrl} with ${a.sim.certificates().length} sample certificates; its hosting side serves the App Service certificates over TLS on ${a.hosting.host}:${a.hosting.port} and its Key Vault holds the Key Vault certificates on ${a.hosting.vault.host}:${a.hosting.vault.port}.`,
    );
    const banner = [
      paint.bold("=== certsched SANDBOX ==="),
      `Simulators of the Certificate Scheduling Service are listening, one per account, ${sandbox.accounts.length} accounts. No real account is involved.`,
      ...each,
      "Each is signed by its own throwaway CA (both in NODE_EXTRA_CA_CERTS below); CERTSCHED_VERIFY_CONNECT_TO sends each vault's host and each domain to its account's simulator (nothing goes to Azure).",
      "These settings point certsched at both accounts (CERTSCHED_ACCOUNTS, with the simulators' own throwaway credentials):",
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
      const urls = Object.entries(dashboard.urls).map(([name, url]) => `  ${name}: ${url}`);
      io.stderr.write(
        `\nDashboards, one per account (after one sweep and one verification):\n${urls.join("\n")}\n`,
      );
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
