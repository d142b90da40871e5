import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { estateCommandWith } from "../../../cli/commands/estate.js";
import { SANDBOX_ESTATE_UNBOUND, SANDBOX_ESTATE_UNMANAGED } from "../../../sim/index.js";
import { leaksIn } from "../../support/app.js";
import { runCommand } from "../../support/command.js";
import { type EstateWorld, startEstateWorld } from "../../support/estateWorld.js";

/** `certsched estate` over the simulator's Resource Manager and vault: text, JSON, exit codes. */

let world: EstateWorld;
beforeAll(async () => {
  world = await startEstateWorld();
});
afterAll(async () => {
  await world?.close();
});

async function estate(argv: readonly string[]) {
  const seams = await world.seams();
  const command = estateCommandWith(
    { estate: seams.estate, inventory: seams.inventory },
    world.keyVault,
  );
  const ran = await runCommand(command, argv, world.settings);
  expect(leaksIn(world.sim, [ran.stdout, ran.stderr])).toEqual([]);
  return ran;
}

describe("certsched estate", () => {
  it("prints the gaps first: the gateway's certificate expiring in 9 days, explained, and the one bound nowhere; exit 0", async () => {
    const ran = await estate([]);
    expect(ran.code).toBe(0);
    const u = SANDBOX_ESTATE_UNMANAGED;
    const text = ran.stdout;
    expect(text).toMatch(/^account default: \d+ certificates, \d+ kept by certsched, 2 not$/m);
    expect(text).toContain("Unmanaged and expiring within 30 days (1):");
    expect(text).toMatch(
      new RegExp(
        `^  ${u.certificate} \\(application-gateway\\) expires \\d{4}-\\d\\d-\\d\\d \\(${u.days} days\\), issuer Unknown$`,
        "m",
      ),
    );
    expect(text).toContain(`bound to listener ${u.hostName}; in `);
    expect(text).toContain(`from https://${u.vault}.vault.azure.net/secrets/${u.certificate}`);
    expect(text).toMatch(
      /certsched would send \(not sent\): \{"certificateName":"portal-contoso-com"/,
    );
    expect(text).toMatch(/fill in: .*email/);
    expect(text).toContain("Unmanaged and bound nowhere (1):");
    expect(text).toContain(`  ${SANDBOX_ESTATE_UNBOUND.name} (app-service-certificate)`);
    expect(text.indexOf("Unmanaged and expiring")).toBeLessThan(text.indexOf("bound nowhere ("));
  });

  it("--json: one document with every entry and the proposal of each unmanaged one", async () => {
    const ran = await estate(["--json", "--expiring", "10"]);
    expect(ran.code).toBe(0);
    const doc = JSON.parse(ran.stdout) as {
      estates: {
        expiringDays: number;
        entries: { name: string; gaps: string[]; proposal?: unknown; managedBy?: string }[];
      }[];
      failures: unknown[];
    };
    expect(doc.failures).toEqual([]);
    expect(doc.estates[0]?.expiringDays).toBe(10);
    const entries = doc.estates[0]?.entries ?? [];
    expect(entries[0]).toMatchObject({
      name: SANDBOX_ESTATE_UNMANAGED.certificate,
      gaps: ["unmanaged-expiring"],
    });
    expect(
      entries.filter((e) => e.managedBy !== undefined).every((e) => e.proposal === undefined),
    ).toBe(true);
    expect(
      entries.filter((e) => e.managedBy === undefined).every((e) => e.proposal !== undefined),
    ).toBe(true);
  });

  it("--expiring outside 1..365 or not a number: a usage error naming it, exit 2", async () => {
    for (const value of ["0", "366", "soon"]) {
      const ran = await estate(["--expiring", value]);
      expect(ran.code, value).toBe(2);
      expect(ran.stderr).toContain("--expiring must be a whole number of days from 1 to 365");
    }
  });

  it("a vault that refuses is listed under what was not read; the report still exits 0", async () => {
    world.vault.forbid(SANDBOX_ESTATE_UNMANAGED.vault);
    try {
      const ran = await estate([]);
      expect(ran.code).toBe(0);
      expect(ran.stdout).toContain("Not read (1):");
      expect(ran.stdout).toContain(`vault ${SANDBOX_ESTATE_UNMANAGED.vault}: refused (403)`);
    } finally {
      world.vault.forbid(SANDBOX_ESTATE_UNMANAGED.vault, false);
    }
  });
});
