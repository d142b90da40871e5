import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { SeedCertificate } from "../../../sim/index.js";
import { accountNames, type SimAccounts, startSimAccounts } from "../../support/accounts.js";
import { inDays, jsonOf, tempDir, writeJson } from "../../support/cli.js";
import { type ChildResult, ensureBuilt, runCli } from "../../support/cliBuild.js";

/**
 * certsched over many accounts (docs/contracts/accounts.md, "The CLI"): the built CLI as a child
 * process, one simulator per account with credentials of its own. Every run is scanned for every
 * account's secrets and issued tokens; every simulator's requests for another account's.
 */

let accounts: SimAccounts | undefined;
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  await accounts?.close();
  accounts = undefined;
});

/** A valid create request (spec 2.1), without the tokens certsched adds. */
const CREATE_REQUEST = {
  certificateName: "new-www",
  rootDomain: "contoso.com",
  email: "admin@contoso.com",
  password: "pfx-password-123",
  isSAN: false,
  cloudSubscriptionId: "00000000-0000-4000-8000-000000000001",
  target: "Cloud App Service",
  challengeType: "http",
  cloudAppServicePlanName: "plan",
  cloudAppServicePlanResourceGroup: "rg-plan",
  cloudAppServiceResourceGroup: "rg-app",
  cloudAppServiceName: "contoso-web",
  cloudAppServiceSlotName: "",
};

/** Certificates due in every account, under the same names in each. */
const due = (): SeedCertificate[] => [
  { certificateName: "www", expiryDate: inDays(5), rootDomain: "contoso.com" },
  { certificateName: "api", expiryDate: inDays(12), rootDomain: "contoso.com" },
  { certificateName: "later", expiryDate: inDays(60), rootDomain: "contoso.com" },
];

async function start(names: readonly string[]): Promise<SimAccounts> {
  accounts = await startSimAccounts(names, () => ({ certificates: due() }));
  return accounts;
}

/** `certsched <args>` with the accounts declared, like an operator's app settings. */
async function cli(
  sims: SimAccounts,
  args: readonly string[],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<ChildResult> {
  const result = await runCli(args, { env: { ...sims.env(), ...env }, ...(cwd ? { cwd } : {}) });
  const output = result.stdout + result.stderr;
  for (const secret of sims.secrets()) expect(output).not.toContain(secret);
  return result;
}

/** No account's credential or token ever reached another account's simulator. */
function expectIsolatedWire(sims: SimAccounts): void {
  for (const { name, sim } of sims.accounts) {
    const foreign = sims.accounts
      .filter((other) => other.name !== name)
      .flatMap(({ sim: o }) => [o.options.apiKey, o.options.clientSecret, ...o.issuedTokens()]);
    for (const request of sim.requests) {
      const wire = JSON.stringify(request);
      for (const value of foreign) expect(wire, `${name}'s simulator`).not.toContain(value);
    }
  }
}

interface SweepResult {
  account: string;
  certificateName: string;
  outcome: string;
}
interface SweepDocument {
  failed: boolean;
  results: SweepResult[];
  counts: Record<string, number>;
  problems: string[];
  accounts: { name: string; failed: boolean; problems: string[] }[];
}

describe("certsched accounts", () => {
  it("lists name, service, subscription and identity, never a secret (--json and a table)", async () => {
    const sims = await start(["contoso", "fabrikam-eu"]);

    const json = await cli(sims, ["accounts", "--json"]);
    const human = await cli(sims, ["accounts"]);
    const one = await cli(sims, ["accounts", "--account", "fabrikam-eu", "--json"]);

    expect(json.code).toBe(0);
    const doc = jsonOf<{ declared: boolean; accounts: Record<string, unknown>[] }>(json);
    expect(doc.declared).toBe(true);
    expect(doc.accounts.map((a) => a.name)).toEqual(["contoso", "fabrikam-eu"]);
    for (const a of doc.accounts) {
      const sim = sims.sim(String(a.name));
      expect(a).toMatchObject({
        baseUrl: sim.baseUrl,
        subscription: sim.options.subscription,
        subscriptionId: sim.options.subscriptionId,
        identity: "client-secret",
        apiKey: "inline",
        clientSecret: "inline",
      });
    }
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^ACCOUNT\s+SERVICE\s+SUBSCRIPTION\s+IDENTITY/);
    expect(human.stdout).toContain("fabrikam-eu");
    expect(human.stdout).toContain(sims.sim("contoso").baseUrl);
    expect(one.code).toBe(0);
    expect(jsonOf<{ accounts: { name: string }[] }>(one).accounts.map((a) => a.name)).toEqual([
      "fabrikam-eu",
    ]);
    // Listing sends nothing anywhere.
    for (const { sim } of sims.accounts) expect(sim.requests).toHaveLength(0);
  });

  it("names a managed identity and Key Vault secrets by kind and name, never by value", async () => {
    const sims = await start(["contoso"]);
    const [inline] = sims.declarations();
    const vaulted = {
      name: "fabrikam",
      baseUrl: "https://certs.fabrikam.example",
      subscription: "sub-fabrikam",
      apiKeySecret: "fabrikam-api-key",
      identity: "managed",
      managedIdentityClientId: "00000000-0000-4000-8000-00000000000f",
    };
    const result = await runCli(["accounts", "--json"], {
      env: {
        CERTSCHED_ACCOUNTS: JSON.stringify([inline, vaulted]),
        CERTSCHED_KEY_VAULT_URL: "https://kv-fabrikam.vault.azure.net",
      },
    });

    expect(result.code).toBe(0);
    for (const secret of sims.secrets())
      expect(result.stdout + result.stderr).not.toContain(secret);
    const doc = jsonOf<{ accounts: Record<string, unknown>[] }>(result);
    expect(doc.accounts[0]).toMatchObject({
      name: "contoso",
      apiKey: "inline",
      clientSecret: "inline",
    });
    expect(doc.accounts[0]).not.toHaveProperty("apiKeySecret");
    expect(doc.accounts[1]).toEqual({
      name: "fabrikam",
      baseUrl: "https://certs.fabrikam.example",
      publicBaseUrl: "https://certs.fabrikam.example/public",
      subscription: "sub-fabrikam",
      subscriptionId: "sub-fabrikam",
      identity: "managed",
      tenantId: null,
      clientId: "00000000-0000-4000-8000-00000000000f",
      apiKey: "key-vault",
      apiKeySecret: "fabrikam-api-key",
      clientSecret: "none",
    });
  });

  it("an unknown --account is a usage error listing the accounts (exit 2), on every command", async () => {
    const sims = await start(["contoso", "fabrikam-eu"]);

    for (const args of [
      ["accounts"],
      ["sweep", "--json"],
      ["due"],
      ["verify"],
      ["test"],
      ["get", "www"],
      ["renew", "www"],
    ]) {
      const result = await cli(sims, [...args, "--account", "nope"]);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toContain(
        "--account 'nope' is unknown: the accounts are 'contoso', 'fabrikam-eu'",
      );
    }
    for (const { sim } of sims.accounts) expect(sim.requests).toHaveLength(0);
  });

  it("create, renew and get need --account when several accounts are declared (exit 2)", async () => {
    const sims = await start(["contoso", "fabrikam-eu"]);

    for (const args of [
      ["get", "www"],
      ["renew", "www"],
      ["renew", "--all-due"],
    ]) {
      const result = await cli(sims, args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toContain("name it with --account NAME");
      expect(result.stderr).toContain("'contoso', 'fabrikam-eu'");
    }
    const dir = await tempDir();
    try {
      await writeJson(join(dir.path, "request.json"), CREATE_REQUEST);
      const create = await cli(sims, ["create", "--file", "request.json"], {}, dir.path);
      expect(create.code).toBe(2);
      expect(create.stderr).toContain("create acts on one account: name it with --account NAME");
      for (const { sim } of sims.accounts) expect(sim.requests).toHaveLength(0);
      const created = await cli(
        sims,
        ["create", "--file", "request.json", "--account", "fabrikam-eu", "--json"],
        {},
        dir.path,
      );
      expect(created.code).toBe(0);
      expect(jsonOf(created)).toMatchObject({ account: "fabrikam-eu", status: "scheduled" });
      expect(sims.sim("fabrikam-eu").requestsFor("create")).toHaveLength(1);
      expect(sims.sim("contoso").requests).toHaveLength(0);
    } finally {
      await dir.remove();
    }

    const got = await cli(sims, ["get", "www", "--account", "fabrikam-eu", "--json"]);
    expect(got.code).toBe(0);
    expect(jsonOf<{ account: string; certificateName: string }>(got)).toMatchObject({
      account: "fabrikam-eu",
      certificateName: "www",
    });
    expect(sims.sim("fabrikam-eu").requestsFor("get").length).toBeGreaterThanOrEqual(1);
    expect(sims.sim("contoso").requests).toHaveLength(0);

    const renewed = await cli(sims, ["renew", "www", "--account", "contoso", "--json"]);
    expect(renewed.code).toBe(0);
    expect(jsonOf<{ account: string; status: string }>(renewed)).toMatchObject({
      account: "contoso",
      status: "scheduled",
    });
    expect(sims.sim("contoso").renewCallsFor("www")).toBe(1);
    expect(sims.sim("fabrikam-eu").renewCallsFor("www")).toBe(0);
    expectIsolatedWire(sims);
  });

  it("sweep renews every account's due certificates, the same names in each (exit 0)", async () => {
    const sims = await start(["contoso", "fabrikam-eu"]);

    const result = await cli(sims, ["sweep", "--json"]);

    expect(result.code).toBe(0);
    const doc = jsonOf<SweepDocument>(result);
    expect(doc.failed).toBe(false);
    expect(doc.accounts).toEqual([
      expect.objectContaining({ name: "contoso", failed: false, problems: [] }),
      expect.objectContaining({ name: "fabrikam-eu", failed: false, problems: [] }),
    ]);
    const seen = doc.results.map((r) => `${r.account}/${r.certificateName}/${r.outcome}`).sort();
    expect(seen).toEqual([
      "contoso/api/renewal-scheduled",
      "contoso/www/renewal-scheduled",
      "fabrikam-eu/api/renewal-scheduled",
      "fabrikam-eu/www/renewal-scheduled",
    ]);
    expect(doc.counts.due).toBe(4);
    for (const { sim } of sims.accounts) {
      expect(sim.renewCallsFor("www")).toBe(1);
      expect(sim.renewCallsFor("api")).toBe(1);
      expect(sim.renewCallsFor("later")).toBe(0);
    }
    expectIsolatedWire(sims);
  });

  it("sweep --account sweeps that account only; one account's results keep today's table", async () => {
    const sims = await start(["contoso", "fabrikam-eu"]);

    const result = await cli(sims, ["sweep", "--account", "fabrikam-eu"]);

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^CERTIFICATE\s+TARGET\s+EXPIRES \(UTC\)\s+OUTCOME/);
    expect(result.stdout).not.toContain("ACCOUNT");
    expect(result.stdout).not.toContain("Account ");
    expect(sims.sim("fabrikam-eu").renewCallsFor("www")).toBe(1);
    expect(sims.sim("contoso").requests).toHaveLength(0);
  });

  it("twelve accounts, one refusing its credentials: the others renew, the sweep exits 1", async () => {
    const names = accountNames(12);
    const sims = await start(names);
    sims.sim("acct-7").expireClientSecret();

    const json = await cli(sims, ["sweep", "--json"], { CERTSCHED_ACCOUNT_CONCURRENCY: "3" });

    expect(json.code).toBe(1);
    const doc = jsonOf<SweepDocument>(json);
    expect(doc.failed).toBe(true);
    expect(doc.accounts.map((a) => a.name)).toEqual(names);
    for (const entry of doc.accounts) {
      expect(entry.failed, entry.name).toBe(entry.name === "acct-7");
    }
    const refused = doc.accounts.find((a) => a.name === "acct-7");
    expect(refused?.problems.join(" ")).toMatch(/AADSTS7000222|client secret/i);
    expect(doc.problems.every((p) => p.startsWith("account acct-7: "))).toBe(true);
    for (const name of names) {
      const renewed = doc.results.filter(
        (r) => r.account === name && r.outcome === "renewal-scheduled",
      );
      expect(renewed, name).toHaveLength(name === "acct-7" ? 0 : 2);
      expect(sims.sim(name).renewCallsFor("www")).toBe(name === "acct-7" ? 0 : 1);
    }

    // For people: each account under its heading, then one line per account.
    const human = await cli(sims, ["sweep"], { CERTSCHED_ACCOUNT_CONCURRENCY: "4" });
    expect(human.code).toBe(1);
    for (const name of names) expect(human.stdout).toContain(`Account ${name} (`);
    expect(human.stdout).toContain("12 accounts swept: 11 succeeded, 1 failed.");
    expect(human.stdout).toMatch(/- acct-7: list failed, 0 renewed; failed: /);
    // The first sweep renewed them: nothing is due any more where the credentials work.
    expect(human.stdout).toMatch(/- acct-1: \d+ due, 0 renewed; ok/);
    expectIsolatedWire(sims);
  }, 120_000);

  it("due and test act on every account, naming each one's rows", async () => {
    const sims = await start(["contoso", "fabrikam-eu"]);

    const dueJson = await cli(sims, ["due", "--json"]);
    const dueHuman = await cli(sims, ["due"]);
    const testJson = await cli(sims, ["test", "--json"]);
    const testOne = await cli(sims, ["test", "--json", "--account", "contoso"]);

    expect(dueJson.code).toBe(0);
    const listed = jsonOf<{ certificates: { account: string; certificateName: string }[] }>(
      dueJson,
    );
    expect(listed.certificates.map((c) => `${c.account}/${c.certificateName}`).sort()).toEqual([
      "contoso/api",
      "contoso/www",
      "fabrikam-eu/api",
      "fabrikam-eu/www",
    ]);
    expect(dueHuman.code).toBe(0);
    expect(dueHuman.stdout).toMatch(/^ACCOUNT\s+CERTIFICATE\s+TARGET/);
    expect(testJson.code).toBe(0);
    const tested = jsonOf<{ results: { account: string; status: string; service: string }[] }>(
      testJson,
    );
    expect(tested.results.map((r) => [r.account, r.status, r.service])).toEqual([
      ["contoso", "ok", sims.sim("contoso").baseUrl],
      ["fabrikam-eu", "ok", sims.sim("fabrikam-eu").baseUrl],
    ]);
    expect(testOne.code).toBe(0);
    expect(jsonOf(testOne)).toMatchObject({ account: "contoso", status: "ok" });
    expectIsolatedWire(sims);
  });

  it("verify checks every account's certificates, each result naming its account", async () => {
    // No rootDomain: nothing to connect to, so each is "unverifiable" (no network needed).
    accounts = await startSimAccounts(["contoso", "fabrikam-eu"], (name) => ({
      certificates: [{ certificateName: `www-${name}`, expiryDate: inDays(5) }],
    }));
    const sims = accounts;

    const json = await cli(sims, ["verify", "--json"]);
    const human = await cli(sims, ["verify"]);
    const domain = await cli(sims, ["verify", "--domain", "localhost:1", "--account", "nope"]);

    expect(json.code).toBe(0);
    const doc = jsonOf<{
      results: { account: string; status: string; domain: string }[];
      accounts: { name: string; failed: boolean }[];
    }>(json);
    expect(doc.results.map((r) => [r.account, r.status])).toEqual([
      ["contoso", "unverifiable"],
      ["fabrikam-eu", "unverifiable"],
    ]);
    expect(doc.accounts.map((a) => [a.name, a.failed])).toEqual([
      ["contoso", false],
      ["fabrikam-eu", false],
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^ACCOUNT\s+DOMAIN\s+STATUS/);
    expect(domain.code).toBe(2);
    expect(domain.stderr).toContain("--account 'nope' is unknown");
    expectIsolatedWire(sims);
  });

  it("one account's service down: due and test still report the other, and exit 1", async () => {
    const sims = await start(["contoso", "fabrikam-eu"]);
    await sims.sim("contoso").close();

    const dueJson = await cli(sims, ["due", "--json"]);
    const testHuman = await cli(sims, ["test"]);

    expect(dueJson.code).toBe(1);
    const doc = jsonOf<{
      certificates: { account: string }[];
      accounts: { name: string; failed: boolean }[];
    }>(dueJson);
    expect(new Set(doc.certificates.map((c) => c.account))).toEqual(new Set(["fabrikam-eu"]));
    expect(doc.accounts).toEqual([
      expect.objectContaining({ name: "contoso", failed: true }),
      expect.objectContaining({ name: "fabrikam-eu", failed: false }),
    ]);
    expect(dueJson.stderr).toContain("account contoso:");
    expect(testHuman.code).toBe(1);
    expect(testHuman.stdout).toContain(
      `fabrikam-eu: connected to ${sims.sim("fabrikam-eu").baseUrl}`,
    );
    expect(testHuman.stdout).toContain("contoso: failed");
  });
});
