import type { Seams } from "../../shared/app/seams.js";
import { MAX_EXPIRING_DAYS, MIN_EXPIRING_DAYS } from "../../shared/core/estate/estateSettings.js";
import type { EstateEntryView } from "../../shared/core/estate/estateView.js";
import { type EstateView, estateView } from "../../shared/core/estate/estateView.js";
import type { KeyVaultSeam } from "../../shared/core/ports/probes.js";
import { UsageError } from "../../shared/lib/errors.js";
import { discoverEstate } from "../../shared/usecases/estate/discoverEstate.js";
import { withServices } from "../accountPorts.js";
import { cliLogger } from "../cliLogger.js";
import { type Command, JSON_OPTION } from "../command.js";
import { type AccountFailure, EXIT, reportAccountFailure } from "../failure.js";
import type { Io } from "../io.js";
import { oneLine, wrapToWidth } from "../output/text.js";
import type { ParsedArgs } from "../usage.js";

const HELP = `Usage: certsched estate [--expiring DAYS] [--account NAME] [--json]

Finds every certificate each account's identity can see, now: App Service
certificates and the sites and slots bound to them, Application Gateway
listeners' certificates, Front Door custom domains, and each readable Key
Vault's certificates (Azure Resource Graph at CERTSCHED_ARM_URL, then the
vaults). Says which ones certsched keeps (matched by vault id, thumbprint
or name) and, first, the gaps:
  unmanaged and expiring   not kept by certsched, expiring within DAYS
  different certificate    on a host name certsched renews, but not its
  bound nowhere            installed, used by nothing
For each one certsched does not keep, the create request it would send to
keep it (NOT sent; what it cannot know is marked <...>). Parts that could
not be read (a vault without a role, a throttled page) are listed; the
rest of the report stands. Changes nothing and keeps nothing: the timer
discoverEstate keeps the report and alerts.

Options:
  --expiring DAYS  The window of "expiring": ${MIN_EXPIRING_DAYS} to ${MAX_EXPIRING_DAYS} days (default
                   CERTSCHED_ESTATE_EXPIRING_DAYS, 30).
  --account NAME   That account only; without it, every account.
  --json           One JSON document: { "estates": [ { "account", "at",
                   "expiringDays", "counts", "entries": [ { "id", "kind",
                   "name", "subscriptionId", "resourceGroup", "thumbprint",
                   "notBefore", "expiresAt", "issuer", "hostNames",
                   "keyVaultId", "boundTo", "autoRenew", "problems",
                   "managedBy", "match", "gaps", "proposal" } ],
                   "problems", "truncated" } ], "failures" }.
  -h, --help       Show this help.

Exit codes: 0 the report was made (whatever it found); 1 an account could
not be read at all; 2 usage or configuration.
`;

/** --expiring's value, or a usage error naming the option and its rule (exit 2). */
export function expiringDaysOf(args: ParsedArgs): number | undefined {
  const text = args.values.expiring;
  if (text === undefined) return undefined;
  const days = typeof text === "string" && /^\d{1,3}$/.test(text) ? Number(text) : Number.NaN;
  if (days >= MIN_EXPIRING_DAYS && days <= MAX_EXPIRING_DAYS) return days;
  throw new UsageError(
    `--expiring must be a whole number of days from ${MIN_EXPIRING_DAYS} to ${MAX_EXPIRING_DAYS}`,
    "estate",
  );
}

const DAY_MS = 86_400_000;

function expiry(entry: EstateEntryView, at: Date): string {
  if (entry.expiresAt === undefined) return "expiry unknown";
  const left = Date.parse(entry.expiresAt) - at.getTime();
  const days = Math.floor(Math.abs(left) / DAY_MS);
  const day = entry.expiresAt.slice(0, 10);
  return left < 0 ? `expired ${day} (${days} days ago)` : `expires ${day} (${days} days)`;
}

function bound(entry: EstateEntryView): string {
  if (entry.boundTo.length === 0) return "bound to nothing";
  const shown = entry.boundTo.slice(0, 3).map((b) => `${b.kind} ${b.hostName ?? b.resourceId}`);
  const more = entry.boundTo.length - shown.length;
  return `bound to ${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}

/** One gap entry: what and where, who issued it, and what certsched would send to keep it. */
function gapLines(entry: EstateEntryView, at: Date): string[] {
  const where = `${entry.subscriptionId}${entry.resourceGroup ? `/${entry.resourceGroup}` : ""}`;
  const lines = [
    `  ${entry.name} (${entry.kind}) ${expiry(entry, at)}, issuer ${entry.issuer ?? "unknown"}`,
    `    ${bound(entry)}; in ${where}`,
  ];
  if (entry.keyVaultId) lines.push(`    from ${entry.keyVaultId}`);
  if (entry.renewedHostNames?.length) {
    lines.push(
      `    certsched renews ${entry.renewedHostNames.join(", ")} with another certificate`,
    );
  }
  if (entry.proposal) {
    lines.push(`    certsched would send (not sent): ${JSON.stringify(entry.proposal.request)}`);
    if (entry.proposal.missing.length > 0) {
      lines.push(`    fill in: ${entry.proposal.missing.join(", ")}`);
    }
  }
  return lines;
}

const SECTIONS = [
  ["unmanaged-expiring", "Unmanaged and expiring within"],
  ["different-certificate", "On a host name certsched renews, but another certificate"],
  ["bound-nowhere", "Unmanaged and bound nowhere"],
] as const;

/** One account's estate in words: counts, the gaps by kind, what could not be read. */
function accountText(view: EstateView): string[] {
  const at = new Date(view.at);
  const n = view.counts;
  const lines = [
    `account ${view.account}: ${n.certificates} certificates, ${n.managed} kept by certsched, ${n.unmanaged} not`,
  ];
  for (const [gap, title] of SECTIONS) {
    const entries = view.entries.filter((e) => e.gaps.includes(gap));
    if (entries.length === 0) continue;
    const heading = gap === "unmanaged-expiring" ? `${title} ${view.expiringDays} days` : title;
    lines.push(`${heading} (${entries.length}):`);
    for (const entry of entries) lines.push(...gapLines(entry, at));
  }
  if (view.problems.length > 0) {
    lines.push(`Not read (${view.problems.length}):`);
    for (const p of view.problems) lines.push(`  ${p.detail}`);
  }
  if (view.truncated > 0)
    lines.push(`${view.truncated} left out at a bound (see --json for the rest).`);
  return lines;
}

/** Every account's estate as text, each line one visible line, wrapped to the terminal. */
export function estateText(estates: readonly EstateView[], width: number | undefined): string {
  const lines = estates.flatMap((view, i) => [...(i > 0 ? [""] : []), ...accountText(view)]);
  return `${lines.flatMap((line) => wrapToWidth(oneLine(line), width, "", "      ")).join("\n")}\n`;
}

interface Found {
  readonly estates: readonly EstateView[];
  readonly failures: readonly (AccountFailure & { readonly account: string })[];
}

/** Every chosen account's estate, discovered now; one account's failure is its own. */
function discover(
  args: ParsedArgs,
  io: Io,
  seams: Seams,
  keyVault: KeyVaultSeam | undefined,
): Promise<Found> {
  const expiringDays = expiringDaysOf(args);
  const choice = { args, command: "estate", scope: "each" as const };
  return withServices(io, [], seams, choice, async (cli) => {
    const log = cliLogger(io, { verbose: false });
    const outcomes = await cli.each(async (runtime) => {
      const run = await discoverEstate(runtime, log, {
        trigger: "cli",
        keep: false,
        expiringDays,
        keyVault,
      });
      return estateView(run.report);
    });
    const only = outcomes[0];
    if (!cli.many && only && !only.ok) throw only.error;
    const failures = outcomes.flatMap((o) =>
      o.ok
        ? []
        : [{ account: o.account, ...reportAccountFailure(o.error, io, o.account, "estate") }],
    );
    return { estates: outcomes.flatMap((o) => (o.ok ? [o.value] : [])), failures };
  });
}

/** `certsched estate` with `seams` and where the vaults are (tests, the sandbox). */
export function estateCommandWith(seams: Seams = {}, keyVault?: KeyVaultSeam): Command {
  return {
    name: "estate",
    help: HELP,
    options: { ...JSON_OPTION, expiring: { type: "string" } },
    maxPositionals: 0,
    run: async (args, io) => {
      const found = await discover(args, io, seams, keyVault);
      if (args.values.json === true) {
        io.stdout.write(`${JSON.stringify(found, null, 2)}\n`);
      } else {
        io.stdout.write(estateText(found.estates, io.stdout.columns));
      }
      return found.failures.length > 0 ? EXIT.failed : EXIT.ok;
    },
  };
}

export const estateCommand: Command = estateCommandWith();
