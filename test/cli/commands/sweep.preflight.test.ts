import { afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import {
  INVENTORY_TABLE,
  tableInventory,
} from "../../../shared/adapters/storage/tableInventory.js";
import type { PreflightRecord } from "../../../shared/core/ports/inventory.js";
import { PREFLIGHT_ADVICE } from "../../../shared/core/preflight/advice.js";
import type { FailReason } from "../../../shared/core/preflight/preflight.js";
import { type Simulator, startSimulator } from "../../../sim/index.js";
import { cliAgainst, jsonOf, seeds } from "../../support/cli.js";
import { ensureBuilt } from "../../support/cliBuild.js";

/**
 * `certsched sweep` and `certsched renew` consult the last preflight, run as an
 * operator runs them: the built CLI against the simulator, with the app's storage on Azurite
 * (the inventory the preflight writes to, the ledger, the history).
 */

interface Result {
  certificateName: string;
  outcome: string;
  reason: string;
  detail: string;
  blockedBy?: string;
  forcedPast?: string;
}
interface SweepDocument {
  forced?: boolean;
  failed: boolean;
  problems: string[];
  counts: Record<string, number>;
  results: Result[];
}

let sim: Simulator;
beforeAll(() => ensureBuilt(), 120_000);
afterEach(() => sim?.close());

const idBase = () => 100_000 + Math.floor(Math.random() * 800_000) * 10;
const env = () => ({ AzureWebJobsStorage: inject("azuriteTableConnectionString") });
const CAA = `blocked (preflight: caa-forbids): ${PREFLIGHT_ADVICE["caa-forbids"]}`;

/** The preflight's result for `name`, as `certsched preflight` keeps it, a minute old. */
async function seedPreflight(name: string, reason: FailReason): Promise<void> {
  const inventory = tableInventory({
    connectionString: inject("azuriteTableConnectionString"),
    tableName: INVENTORY_TABLE,
  });
  const at = new Date(Date.now() - 60_000);
  await inventory.upsert([{ certificateName: name, source: "due-list", seenAt: at }]);
  const record: PreflightRecord = {
    at,
    status: "will-fail",
    rootDomain: "contoso.com",
    checks: [{ check: "caa", status: "fail", reason, detail: '0 issue "other-ca.example"' }],
  };
  await inventory.recordPreflight(name, record);
}

describe("certsched sweep and a blocking preflight", () => {
  it("--json: the blocked certificate is not renewed, the other is; exit 1; --force renews it (exit 0)", async () => {
    const base = idBase();
    sim = await startSimulator({ certificates: seeds(base, [3, 5]) });
    const blocked = `cert-${base}`;
    await seedPreflight(blocked, "caa-forbids");

    const first = await cliAgainst(sim, ["sweep", "--json"], { env: env() });

    expect(first.code).toBe(1);
    const doc = jsonOf<SweepDocument>(first);
    expect(doc.results.map((r) => [r.certificateName, r.outcome])).toEqual([
      [blocked, "blocked"],
      [`cert-${base + 1}`, "renewal-scheduled"],
    ]);
    expect(doc.results[0]).toMatchObject({
      reason: "PreflightBlocked",
      blockedBy: "caa-forbids",
      detail: CAA,
    });
    expect(doc.counts).toMatchObject({ due: 2, blocked: 1, "renewal-scheduled": 1 });
    expect(doc.problems).toEqual([expect.stringMatching(/^1 certificate\(s\) blocked .*: cert-/)]);
    expect(sim.renewCallsFor(blocked)).toBe(0);

    const forced = await cliAgainst(sim, ["sweep", "--force", "--json"], { env: env() });

    expect(forced.code).toBe(0);
    const again = jsonOf<SweepDocument>(forced);
    expect(again).toMatchObject({ forced: true, failed: false });
    expect(again.results.find((r) => r.certificateName === blocked)).toMatchObject({
      outcome: "renewal-scheduled",
      forcedPast: "caa-forbids",
    });
    expect(sim.renewCallsFor(blocked)).toBe(1);
  });

  it("for people: the table says blocked (preflight: <reason>), the advice follows, exit 1", async () => {
    const base = idBase();
    sim = await startSimulator({ certificates: seeds(base, [3]) });
    await seedPreflight(`cert-${base}`, "dns-zone-missing");

    const result = await cliAgainst(sim, ["sweep"], { env: { ...env(), COLUMNS: "200" } });

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /cert-\d+ +Cloud App Service .* blocked \(preflight: dns-zone-missing\)/,
    );
    expect(result.stdout).toContain(
      `cert-${base} blocked (preflight: dns-zone-missing):\n  blocked (preflight: dns-zone-missing): ${PREFLIGHT_ADVICE["dns-zone-missing"]}`,
    );
    expect(result.stdout).toContain("1 due: 1 blocked.");
    expect(result.stdout).toContain("The sweep failed:");

    const forced = await cliAgainst(sim, ["sweep", "--force"], {
      env: { ...env(), COLUMNS: "200" },
    });

    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain(
      `cert-${base} renewal-scheduled:\n  forced past blocked (preflight: dns-zone-missing); `,
    );
    expect(forced.stdout).toContain(
      "1 due: 1 renewal-scheduled. Forced: renewed past any preflight that blocked it.",
    );
  });
});

describe("certsched renew <name> and a blocking preflight", () => {
  it("sends nothing and exits 1 with the blocked line and the advice; --force renews it", async () => {
    const base = idBase();
    sim = await startSimulator({ certificates: seeds(base, [40]) });
    const name = `cert-${base}`;
    await seedPreflight(name, "caa-forbids");

    const blocked = await cliAgainst(sim, ["renew", name], { env: env() });

    expect(blocked.code).toBe(1);
    expect(blocked.stdout).toBe(`Renewal of ${name} not sent, ${CAA}\n`);
    expect(blocked.stderr).toContain(`certsched renew ${name} --force`);
    // Not even Get Certificate: nothing reached the service.
    expect(sim.requests.filter((r) => r.operation !== "token")).toEqual([]);

    const json = await cliAgainst(sim, ["renew", name, "--json"], { env: env() });
    expect(json.code).toBe(1);
    expect(jsonOf(json)).toMatchObject({
      certificateName: name,
      status: "blocked",
      blockedBy: "caa-forbids",
      message: CAA,
    });

    const forced = await cliAgainst(sim, ["renew", name, "--force", "--json"], { env: env() });
    expect(forced.code).toBe(0);
    expect(jsonOf(forced)).toMatchObject({ status: "scheduled", forcedPast: "caa-forbids" });
    expect(sim.renewCallsFor(name)).toBe(1);
  });

  it("several names: the blocked one counts as failed, the other renews", async () => {
    const base = idBase();
    sim = await startSimulator({ certificates: seeds(base, [40, 41]) });
    await seedPreflight(`cert-${base}`, "app-missing");

    const result = await cliAgainst(sim, ["renew", `cert-${base}`, `cert-${base + 1}`, "--json"], {
      env: env(),
    });

    expect(result.code).toBe(1);
    expect(jsonOf(result)).toMatchObject({
      failed: 1,
      results: [
        { certificateName: `cert-${base}`, status: "blocked", blockedBy: "app-missing" },
        { certificateName: `cert-${base + 1}`, status: "scheduled" },
      ],
    });
    expect(sim.renewCallsFor(`cert-${base}`)).toBe(0);
    expect(sim.renewCallsFor(`cert-${base + 1}`)).toBe(1);
  });
});
