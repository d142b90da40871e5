import { loadVerifySettings } from "../../shared/app/config/verifySettings.js";
import { adviceFor } from "../../shared/core/verification/advice.js";
import {
  endpointKey,
  type NamedEndpoint,
  parseEndpoint,
} from "../../shared/core/verification/endpoint.js";
import {
  countInventoryStatuses,
  failsRun,
  type InventoryResult,
} from "../../shared/core/verification/inventoryResult.js";
import { INVENTORY_STATUSES } from "../../shared/core/verification/judge.js";
import type { VerifySettings } from "../../shared/core/verification/verifySettings.js";
import { UsageError } from "../../shared/lib/errors.js";
import { parseDuration } from "../../shared/lib/time.js";
import { verifyTargets } from "../../shared/usecases/verifyDomains.js";
import { type AccountEntry, requestedAccount, selectAccounts } from "../accounts.js";
import { type Command, JSON_OPTION } from "../command.js";
import { cliEnv, cliSettings } from "../config.js";
import { EXIT } from "../exit.js";
import { SILENT } from "../io.js";
import { type Paint, type Palette, palette } from "../output/color.js";
import { formatExpiry } from "../output/expiry.js";
import { renderTable } from "../output/table.js";
import { oneLine, wrapToWidth } from "../output/text.js";
import type { AccountResult } from "../verifyAccounts.js";

const HELP = `Usage: certsched verify [--json] [--domain NAME[:PORT] ...] [--timeout DURATION]
                        [--account NAME]

Checks what each domain actually serves, as a browser would: connects with SNI
(port 443 unless given), reads the certificate, never sends a request. Each
result is the first that applies of: unreachable, incomplete-chain (the
intermediates are not sent), untrusted, mismatch, weak (RSA under 2048 bits,
EC under P-256, SHA-1), too-long (validity over the CA/Browser Forum limit on
its notBefore), expired, pending, not-landed, not-synced (a domain bound to a
Key Vault certificate serves an older version than the vault's current one,
created more than CERTSCHED_SYNC_WINDOW ago; pending within it), expiring
(critical below 7 days), ok.

Without --domain, checks certsched's inventory (every certificate it has seen
or renewed, CERTSCHED_WATCH endpoints, CERTSCHED_WATCH_CERTIFICATES) and the
service's current due list, once per domain: App Service certificates over
TLS, Key Vault certificates in their vault; a certificate with nothing to look
at (another target, no rootDomain) is "unverifiable". Needs the service
settings, as "certsched due"; with storage configured, results are recorded.
Every account's (an ACCOUNT column when there are several), or --account's.

Options:
  --domain NAME[:PORT]  A domain to check; repeat for more. Needs no service
                        settings and no storage. [::1]:8443 for IPv6.
  --timeout DURATION    Time allowed per domain (e.g. 10s); default
                        CERTSCHED_HTTP_TIMEOUT (30s).
  --account NAME        Verify that account's certificates only.
  --json                Print one JSON document: { "results": [ { account,
                        domain, source, servedNotAfter, daysLeft, status,
                        issuer, detail, ... } ], "counts": { status: n } }
                        (with several accounts, also "accounts": [ { "name",
                        "failed", "problems" } ]). No account with --domain.
  -h, --help            Show this help.

Settings: CERTSCHED_VERIFY_CONNECT_TO (curl's --connect-to:
HOST1:PORT1:HOST2:PORT2, comma-separated), CERTSCHED_VERIFY_WARN_DAYS (14),
CERTSCHED_VERIFY_WINDOW (2h), CERTSCHED_VERIFY_UNREACHABLE_AFTER (24h),
CERTSCHED_SYNC_WINDOW (24h).
Trust: Node's CA store plus the PEM file NODE_EXTRA_CA_CERTS names.

Exit codes: 0 every result ok, pending, unverifiable, expiring (not
critically) or unreachable within its grace; 1 any incomplete-chain,
untrusted, mismatch, weak, too-long, expired, not-landed, not-synced,
critically expiring
or unreachable past its grace (with
--domain, or without storage, there is no grace), or a due list failed (any
account's); 2 usage or configuration error.
`;

/** Where notes go when they were already written once. */

/** parseArgs gives a repeatable flag as an array; ParsedArgs' type does not say so. */
function domainsOf(value: unknown): string[] {
  if (value === undefined) return [];
  return Array.isArray(value)
    ? value.filter((v): v is string => typeof v === "string")
    : [String(value)];
}

/** Every --domain parsed, once each (one result per domain), or one UsageError naming them all. */
function endpointsOf(texts: readonly string[]): NamedEndpoint[] {
  const problems: string[] = [];
  const endpoints = new Map<string, NamedEndpoint>();
  for (const text of texts) {
    const parsed = parseEndpoint(text);
    if (typeof parsed === "string") problems.push(`--domain ${parsed}`);
    else if (!endpoints.has(endpointKey(parsed))) endpoints.set(endpointKey(parsed), parsed);
  }
  if (problems.length > 0) throw new UsageError(problems.join("; "), "verify");
  return [...endpoints.values()];
}

function timeoutOf(value: string | boolean | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = typeof value === "string" ? parseDuration(value) : undefined;
  if (ms === undefined || ms < 100 || ms > 600_000) {
    throw new UsageError(
      "--timeout must be a duration from 100ms to 10m, like 10s or 2m",
      "verify",
    );
  }
  return ms;
}

function statusPaint(r: InventoryResult, paint: Palette): Paint | undefined {
  if (r.status === "ok") return paint.green;
  if (r.status === "pending") return paint.cyan;
  if (r.status === "unverifiable") return paint.dim;
  if (!failsRun(r)) return paint.yellow;
  return paint.red;
}

/**
 * The issuer for a narrow column: its organization (Let's Encrypt, DigiCert Inc), else its
 * common name; the full name is in --json.
 */
function issuerName(issuer: string | undefined): string {
  if (issuer === undefined) return "-";
  const field = (key: string) => new RegExp(`(?:^|, )${key}=([^,]+)`).exec(issuer)?.[1];
  return field("O") ?? field("CN") ?? issuer;
}

const statusText = (r: InventoryResult) =>
  r.critical ? `${r.status} (critical)` : r.pastGrace ? `${r.status} (past grace)` : r.status;

/**
 * The table for people (with an ACCOUNT column over several accounts), then each result that
 * is not ok with its cause and what to do.
 */
export function renderResults(
  results: readonly AccountResult[],
  paint: Palette,
  width: number | undefined,
  many = false,
): string[] {
  const lines = renderTable(
    [
      ...(many ? [{ heading: "ACCOUNT" }] : []),
      { heading: "DOMAIN", shrink: 1 },
      { heading: "STATUS" },
      { heading: "EXPIRES (UTC)" },
      { heading: "ISSUER", shrink: 2 },
    ],
    results.map((r) => [
      ...(many ? [r.account ?? "-"] : []),
      r.domain,
      { text: statusText(r), paint: statusPaint(r, paint) },
      r.servedNotAfter === undefined || r.daysLeft === undefined
        ? "-"
        : formatExpiry(r.servedNotAfter, r.daysLeft),
      issuerName(r.issuer),
    ]),
    { header: paint.bold, width },
  );
  const worded = results.filter((r) => r.status !== "ok");
  if (worded.length > 0) lines.push("");
  for (const r of worded) {
    const who = many && r.account !== undefined ? `${r.account}: ` : "";
    lines.push(
      ...wrapToWidth(
        `${who}${oneLine(r.domain)} ${statusPaint(r, paint)?.(statusText(r)) ?? statusText(r)}:`,
        width,
      ),
    );
    lines.push(...wrapToWidth(oneLine(r.detail), width, "  "));
    const advice =
      r.status === "unverifiable" ? undefined : adviceFor(r.status, r.critical === true);
    if (advice) lines.push(...wrapToWidth(advice, width, "  "));
  }
  const counts = countInventoryStatuses(results);
  const parts = INVENTORY_STATUSES.filter((s) => counts[s] !== undefined).map(
    (s) => `${counts[s]} ${s}`,
  );
  lines.push("", ...wrapToWidth(`${results.length} checked: ${parts.join(", ")}.`, width));
  return lines;
}

export const verifyCommand: Command = {
  name: "verify",
  help: HELP,
  options: {
    ...JSON_OPTION,
    domain: { type: "string", multiple: true },
    timeout: { type: "string" },
  },
  maxPositionals: 0,
  run: async (args, io) => {
    const texts = domainsOf((args.values as Readonly<Record<string, unknown>>).domain);
    const timeoutMs = timeoutOf(args.values.timeout);
    const withTimeout = (settings: VerifySettings) =>
      timeoutMs === undefined ? settings : { ...settings, timeoutMs };
    let results: AccountResult[];
    let many = false;
    const failures: { account: string; message: string }[] = [];
    let entries: AccountEntry[] | undefined;
    if (texts.length > 0) {
      const endpoints = endpointsOf(texts);
      // --domain needs no account; a name given is still checked against the declared ones.
      const requested = requestedAccount(args);
      if (requested !== undefined) {
        selectAccounts(
          await cliSettings({ ...io, stderr: SILENT }, []),
          requested,
          "verify",
          "each",
        );
      }
      const { env } = await cliEnv(io);
      // The probe (and node-forge, which reads what it is served) only when a domain is checked.
      const { probeTls } = await import("../../shared/adapters/probes/tlsProbe.js");
      const read = await verifyTargets(
        endpoints.map((endpoint) => ({ endpoint })),
        {
          probes: { tls: probeTls },
          settings: withTimeout(loadVerifySettings(env)),
          now: () => new Date(),
        },
      );
      // No record of earlier attempts is kept for --domain: no grace (contracts/verify.md).
      results = read.map((r) => (r.status === "unreachable" ? { ...r, pastGrace: true } : r));
    } else {
      // Every account's inventory and due list: the service and storage code loads only here.
      const { verifyAccounts } = await import("../verifyAccounts.js");
      const read = await verifyAccounts(io, args, withTimeout);
      results = read.results;
      many = read.many;
      failures.push(...read.failures);
      entries = read.entries;
    }
    if (args.values.json === true) {
      const document = {
        results,
        counts: countInventoryStatuses(results),
        ...(entries ? { accounts: entries } : {}),
      };
      io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    } else if (results.length === 0) {
      io.stdout.write(
        "Nothing to verify: the inventory is empty, nothing is watched and no certificate is due.\n",
      );
    } else {
      io.stdout.write(
        `${renderResults(results, palette(io.stdout, io.env), io.stdout.columns, many).join("\n")}\n`,
      );
    }
    return results.some(failsRun) || failures.length > 0 ? EXIT.failed : EXIT.ok;
  },
};
