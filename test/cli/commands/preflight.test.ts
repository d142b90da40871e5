import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { tableInventory } from "../../../shared/adapters/storage/tableInventory.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import { type Simulator, startSimulator } from "../../../sim/index.js";
import { type AzuriteHandle, startAzurite } from "../../support/azurite.js";
import { cliAgainst, inDays, jsonOf } from "../../support/cli.js";
import { ensureBuilt, runCli } from "../../support/cliBuild.js";

/**
 * certsched preflight end to end: the built CLI as a child process, the simulator as the service,
 * an Azurite of this file's own as the inventory. What a run decides before any check runs
 * (settings, names, accounts) and the empty document; the statuses, the table and exit 1 are in
 * preflight.inProcess.test.ts (check functions of the test's own).
 */

let azurite: AzuriteHandle;
let sim: Simulator | undefined;
beforeAll(async () => {
  await ensureBuilt();
  azurite = await startAzurite();
}, 120_000);
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});
afterAll(() => azurite?.stop());

const storage = () => ({ AzureWebJobsStorage: azurite.connectionString });

async function simulator(...args: Parameters<typeof startSimulator>): Promise<Simulator> {
  sim = await startSimulator(...args);
  return sim;
}

const due = (certificateName: string) => ({
  certificateName,
  rootDomain: "www.contoso.com",
  expiryDate: inDays(10),
});

describe("certsched preflight: help", () => {
  it("is listed by --help and completion, with its own help", async () => {
    const top = await runCli(["--help"]);
    const own = await runCli(["preflight", "--help"]);
    const bash = await runCli(["completion", "bash"]);

    expect(top.stdout).toMatch(/^ {2}preflight +Check days ahead what would make a renewal fail/m);
    expect(own.code).toBe(0);
    expect(own.stdout).toMatch(/^Usage: certsched preflight \[--json\] \[--account NAME\]/);
    for (const line of own.stdout.split("\n")) expect(line.length).toBeLessThanOrEqual(80);
    expect(bash.stdout).toMatch(/preflight\) words='--json --certificate --account --help'/);
  });
});

describe("certsched preflight: configuration errors", () => {
  it("a bad CERTSCHED_DNS_SERVERS is exit 2 naming it, before anything is read", async () => {
    const s = await simulator({ certificates: [due("www")] });

    const text = await cliAgainst(s, ["preflight"], {
      env: { CERTSCHED_DNS_SERVERS: "10.0.0.1:99999" },
    });
    const json = await cliAgainst(s, ["preflight", "--json"], {
      env: { CERTSCHED_DNS_SERVERS: "bad host!" },
    });

    expect(text.code).toBe(2);
    expect(text.stderr).toContain("certsched: error: invalid configuration");
    expect(text.stderr).toContain("- CERTSCHED_DNS_SERVERS: a port must be a whole number");
    expect(text.stdout).toBe("");
    expect(json.code).toBe(2);
    expect(jsonOf(json)).toMatchObject({
      error: {
        code: "CONFIG_INVALID",
        problems: [{ name: "CERTSCHED_DNS_SERVERS", message: expect.any(String) }],
      },
    });
    expect(s.requestsFor("list")).toHaveLength(0);
  });

  it("an http CERTSCHED_ARM_URL is exit 2 naming it: tokens go over TLS only", async () => {
    const s = await simulator({ certificates: [due("www")] });

    const result = await cliAgainst(s, ["preflight", "--json"], {
      env: { CERTSCHED_ARM_URL: "http://127.0.0.1:8443" },
    });

    expect(result.code).toBe(2);
    expect(jsonOf(result)).toMatchObject({
      error: {
        code: "CONFIG_INVALID",
        problems: [{ name: "CERTSCHED_ARM_URL", message: expect.stringContaining("https") }],
      },
    });
    expect(s.requestsFor("list")).toHaveLength(0);
  });

  it("an unknown --account is exit 2 naming the accounts", async () => {
    const s = await simulator();

    const result = await cliAgainst(s, ["preflight", "--account", "north"]);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--account 'north' is unknown: the accounts are 'default'");
  });
});

describe("certsched preflight: what is checked", () => {
  it("nothing due and no storage: the empty document, every count zero, exit 0", async () => {
    const s = await simulator({
      certificates: [{ certificateName: "far", expiryDate: inDays(60) }],
    });

    const json = await cliAgainst(s, ["preflight", "--json"]);
    const text = await cliAgainst(s, ["preflight"]);

    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      results: [],
      counts: { ready: 0, "will-fail": 0, unknown: 0 },
    });
    expect(text.code).toBe(0);
    expect(text.stdout).toBe("Nothing to check: no certificate is on the due list.\n");
    expect(text.stderr).toContain("no storage configured: checked the certificates on the");
  });

  it("a --certificate not on the due list (no storage) is exit 2 naming it, one document", async () => {
    const s = await simulator({ certificates: [due("www")] });

    const result = await cliAgainst(s, ["preflight", "--json", "--certificate", "wwx"]);

    expect(result.code).toBe(2);
    expect(jsonOf(result)).toEqual({
      error: {
        code: "USAGE",
        message:
          "--certificate 'wwx': not found in the inventory (or, without storage, on the due list); nothing was checked",
      },
    });
    expect(result.stderr).toContain('Run "certsched preflight --help" for usage.');
    // The list was read once, to look the name up.
    expect(s.requestsFor("list")).toHaveLength(1);
  });

  it("with storage, a --certificate the inventory does not hold is exit 2, and nothing is stored", async () => {
    const s = await simulator();
    const inventory = tableInventory({ connectionString: azurite.connectionString });
    const name = `kept-${Math.floor(Math.random() * 1e9)}`;
    await inventory.upsert([
      {
        certificateName: name,
        rootDomain: "www.contoso.com",
        target: "Cloud App Service",
        challengeType: "http",
        serviceExpiry: new Date(Date.now() + 30 * DAY_MS),
        source: "due-list",
        seenAt: new Date(),
      },
    ]);

    const result = await cliAgainst(s, ["preflight", "--certificate", `${name}x`], {
      env: storage(),
    });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--certificate '${name}x': not found in the inventory`);
    expect(result.stdout).toBe("");
    expect((await inventory.get(name))?.lastPreflight).toBeUndefined();
    // With storage the inventory is what is checked: the service is not asked.
    expect(s.requestsFor("list")).toHaveLength(0);
  });
});
