import { loadVerifySettings } from "../shared/app/config/verifySettings.js";
import type { AccountPorts } from "../shared/app/services.js";
import { ariWindowText, windowStarted } from "../shared/core/ari/ariRecord.js";
import { fromServiceRecord, remember } from "../shared/core/inventory/fromRecords.js";
import type { InventoryResult } from "../shared/core/verification/inventoryResult.js";
import { isWatch } from "../shared/core/verification/plan.js";
import type { VerifySettings } from "../shared/core/verification/verifySettings.js";
import { verifyInventory } from "../shared/usecases/steps/verifyInventory.js";
import { withServices } from "./accountPorts.js";
import { type AccountEntry, accountsEntries, withAccount } from "./accounts.js";
import { cliLogger } from "./cliLogger.js";
import { cliEnv } from "./config.js";
import { reportAccountFailure } from "./failure.js";
import { type Io, SILENT } from "./io.js";
import { oneLine, wrapToWidth } from "./output/text.js";
import type { ParsedArgs } from "./usage.js";

/**
 * `certsched verify` without --domain: every chosen account's inventory and due list, verified
 * (and recorded, with storage). Its own module so that `verify --domain`, which needs neither
 * the service nor the storage, never loads them (and starts sooner).
 */

/** One account's inventory and due list, verified (and recorded, with storage). */
async function verifyAccount(
  runtime: AccountPorts,
  io: Io,
  settings: VerifySettings,
  account: string | undefined,
): Promise<InventoryResult[]> {
  const log = cliLogger(io, { verbose: false });
  const { certificates, rejected } = await runtime.client.listDue();
  for (const r of rejected) {
    const where = account === undefined ? "" : `account ${account}: `;
    const note = `certsched: ${where}record ${r.index} of the list (${r.certificateName ?? "unnamed"}) is invalid and not checked.`;
    io.stderr.write(`${wrapToWidth(oneLine(note), io.stderr.columns).join("\n")}\n`);
  }
  // The due list joins the inventory (kept, with storage), then both are verified.
  const seenAt = runtime.now();
  const due = certificates.map((c) => fromServiceRecord(c, "due-list", seenAt));
  await remember(runtime, log, due);
  const verification = await verifyInventory(runtime, log, {
    trigger: "cli",
    settings,
    also: due,
    // ARI: verify reads; the CA's "renew now" is said here and left to the timer.
    onAri: (readings) => {
      for (const { record, ari } of readings) {
        if (isWatch(record) || !windowStarted(ari, runtime.now())) continue;
        const where = account === undefined ? "" : `account ${account}: `;
        const note = `certsched ARI: ${where}${record.certificateName}: ${ariWindowText(ari, runtime.now())}: the CA asks for its renewal now. certsched verify only reads: the verification timer (or POST /api/verifications) renews it (trigger ari), or run: certsched renew ${record.certificateName}`;
        io.stderr.write(`${wrapToWidth(oneLine(note), io.stderr.columns).join("\n")}\n`);
      }
    },
  });
  return verification.results;
}

/** A result, with the account it was verified for (none with --domain). */
export type AccountResult = InventoryResult & { readonly account?: string };

/** What verifyAccounts read: the results, whether several accounts, each failed account. */
export interface AccountsRead {
  readonly results: AccountResult[];
  readonly many: boolean;
  readonly failures: { account: string; message: string }[];
  readonly entries: AccountEntry[] | undefined;
}

export async function verifyAccounts(
  io: Io,
  args: ParsedArgs,
  withTimeout: (settings: VerifySettings) => VerifySettings,
): Promise<AccountsRead> {
  let many = false;
  let entries: AccountEntry[] | undefined;
  const failures: { account: string; message: string }[] = [];
  const choice = { args, command: "verify", scope: "each" } as const;
  const results = await withServices(io, ["subscriptionId"], {}, choice, async (cli) => {
    many = cli.many;
    // The runtime already read the settings and warned about unknown names: not twice.
    const { env } = await cliEnv({ ...io, stderr: SILENT });
    const settings = withTimeout(loadVerifySettings(env));
    const outcomes = await cli.each((runtime, account) =>
      verifyAccount(runtime, io, settings, cli.many ? account : undefined),
    );
    if (!cli.many && outcomes[0] && !outcomes[0].ok) throw outcomes[0].error;
    for (const o of outcomes) {
      if (!o.ok)
        failures.push({
          account: o.account,
          ...reportAccountFailure(o.error, io, o.account, "verify"),
        });
    }
    if (cli.many) entries = accountsEntries(outcomes, failures);
    return outcomes.flatMap((o) => (o.ok ? o.value.map((r) => withAccount(o.account, r)) : []));
  });
  return { results, many, failures, entries };
}
