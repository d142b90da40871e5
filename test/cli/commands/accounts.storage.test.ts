import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type SimAccounts, startSimAccounts } from "../../support/accounts.js";
import { type AzuriteHandle, startAzurite } from "../../support/azurite.js";
import { inDays, jsonOf } from "../../support/cli.js";
import { type ChildResult, ensureBuilt, runCli } from "../../support/cliBuild.js";

/**
 * certsched over many accounts with the app's storage: each account's ledger, history and runs in
 * its own tables on an Azurite of this file's own, so the same certificate name (and id) in two
 * accounts is two certificates, and one account's rows are never read as another's.
 */

let azurite: AzuriteHandle;
let accounts: SimAccounts | undefined;
beforeAll(async () => {
  await ensureBuilt();
  azurite = await startAzurite();
}, 120_000);
afterEach(async () => {
  await accounts?.close();
  accounts = undefined;
});
afterAll(async () => {
  await azurite?.stop();
});

/** Account names of this test's own: their tables are new on the shared Azurite. */
const fresh = () => {
  const tag = randomBytes(3).toString("hex");
  return [`contoso-${tag}`, `fabrikam-${tag}`];
};

async function cli(sims: SimAccounts, args: readonly string[]): Promise<ChildResult> {
  const result = await runCli(args, {
    env: { ...sims.env(), AzureWebJobsStorage: azurite.connectionString },
  });
  const output = result.stdout + result.stderr;
  for (const secret of sims.secrets()) expect(output).not.toContain(secret);
  return result;
}

interface Row {
  account: string;
  certificateName: string;
}

describe("many accounts, one storage", () => {
  it("the same certificate name in two accounts: two ledgers, two histories, two status rows", async () => {
    const [a, b] = fresh() as [string, string];
    // The renewal completes in an hour: the certificate stays due, so the ledger decides.
    accounts = await startSimAccounts([a, b], () => ({
      completionDelayMs: 3_600_000,
      certificates: [{ certificateName: "www", expiryDate: inDays(5), rootDomain: "contoso.com" }],
    }));
    const sims = accounts;

    const first = await cli(sims, ["sweep", "--json"]);
    const again = await cli(sims, ["sweep", "--account", a, "--json"]);

    expect(first.code).toBe(0);
    const swept = jsonOf<{
      ledger: string;
      results: (Row & { outcome: string })[];
      accounts: { name: string; ledger: string }[];
    }>(first);
    expect(swept.ledger).toBe("table");
    expect(swept.accounts.map((x) => [x.name, x.ledger])).toEqual([
      [a, "table"],
      [b, "table"],
    ]);
    expect(swept.results.map((r) => `${r.account}/${r.certificateName}/${r.outcome}`)).toEqual([
      `${a}/www/renewal-scheduled`,
      `${b}/www/renewal-scheduled`,
    ]);
    // The second sweep of one account reads its own ledger: renewed already, so skipped.
    expect(again.code).toBe(0);
    const second = jsonOf<{ results: (Row & { outcome: string; reason: string })[] }>(again);
    expect(second.results).toEqual([
      expect.objectContaining({ account: a, certificateName: "www", outcome: "skipped" }),
    ]);
    expect(sims.sim(a).renewCallsFor("www")).toBe(1);
    expect(sims.sim(b).renewCallsFor("www")).toBe(1);

    const status = await cli(sims, ["status", "--json", "--offline"]);
    expect(status.code).toBe(0);
    const statusDoc = jsonOf<{
      certificates: (Row & { ledger: { attempts: number } | null })[];
      accounts: { name: string; service: string }[];
    }>(status);
    expect(
      statusDoc.certificates.map((c) => [c.account, c.certificateName, c.ledger?.attempts]),
    ).toEqual([
      [a, "www", 1],
      [b, "www", 1],
    ]);
    expect(statusDoc.accounts.map((x) => [x.name, x.service])).toEqual([
      [a, "not-asked"],
      [b, "not-asked"],
    ]);
    const statusHuman = await cli(sims, ["status", "--offline"]);
    expect(statusHuman.stdout).toMatch(/^ACCOUNT\s+CERTIFICATE\s+STATUS/);

    const history = await cli(sims, ["history", "--account", b, "--json"]);
    expect(history.code).toBe(0);
    const events = jsonOf<{ events: (Row & { event: string })[] }>(history).events;
    expect(events.length).toBeGreaterThan(0);
    expect(new Set(events.map((e) => e.account))).toEqual(new Set([b]));
    const all = await cli(sims, ["history", "--json"]);
    const both = jsonOf<{ events: Row[] }>(all).events;
    expect(new Set(both.map((e) => e.account))).toEqual(new Set([a, b]));
    const runs = await cli(sims, ["runs", "--json"]);
    expect(runs.code).toBe(0);
    const listed = jsonOf<{ runs: { account: string }[] }>(runs).runs;
    // The first sweep ran both accounts, the second one only: three runs, two of them a's.
    expect(listed.map((r) => r.account).sort()).toEqual([a, a, b].sort());
    const runsHuman = await cli(sims, ["runs"]);
    expect(runsHuman.stdout).toMatch(/^ACCOUNT\s+STARTED \(UTC\)/);
  }, 120_000);

  it("one account over its quota: its renewals are deferred and the sweep exits 1; the others renew", async () => {
    const [a, b] = fresh() as [string, string];
    const c = `${a}-3`;
    accounts = await startSimAccounts([a, b, c], () => ({
      certificates: [{ certificateName: "www", expiryDate: inDays(5), rootDomain: "contoso.com" }],
    }));
    const sims = accounts;
    // The middle account's budget is spent by its own list: nothing left for a renewal.
    const declarations = sims
      .declarations()
      .map((d) => (d.name === b ? { ...d, quota: "1/7d" } : d));

    const result = await runCli(["sweep", "--json"], {
      env: {
        CERTSCHED_ACCOUNTS: JSON.stringify(declarations),
        AzureWebJobsStorage: azurite.connectionString,
      },
    });

    for (const secret of sims.secrets())
      expect(result.stdout + result.stderr).not.toContain(secret);
    expect(result.code).toBe(1);
    const doc = jsonOf<{
      results: (Row & { outcome: string })[];
      accounts: { name: string; failed: boolean; problems: string[] }[];
    }>(result);
    expect(doc.results.map((r) => `${r.account}/${r.outcome}`)).toEqual([
      `${a}/renewal-scheduled`,
      `${b}/deferred`,
      `${c}/renewal-scheduled`,
    ]);
    expect(doc.accounts.map((x) => [x.name, x.failed])).toEqual([
      [a, false],
      [b, true],
      [c, false],
    ]);
    expect(doc.accounts[1]?.problems.join(" ")).toContain("quota");
    expect(sims.sim(a).renewCallsFor("www")).toBe(1);
    expect(sims.sim(b).renewCallsFor("www")).toBe(0);
    expect(sims.sim(c).renewCallsFor("www")).toBe(1);
  }, 120_000);
});
