import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tableInventory } from "../../../shared/adapters/storage/tableInventory.js";
import { DAY_MS, HOUR_MS } from "../../../shared/lib/time.js";
import { type Simulator, startSimulator } from "../../../sim/index.js";
import { type AzuriteHandle, startAzurite } from "../../support/azurite.js";
import { cliAgainst, jsonOf } from "../../support/cli.js";
import { ensureBuilt } from "../../support/cliBuild.js";

/**
 * `certsched status` and the CA's renewal window (ARI), the built CLI over an Azurite of its own:
 * the inventory row's `ari` as a verification run would have stored it.
 */

let azurite: AzuriteHandle;
let sim: Simulator;

beforeAll(async () => {
  await ensureBuilt();
  azurite = await startAzurite();
  sim = await startSimulator({ certificates: [] });
  const inventory = tableInventory({ connectionString: azurite.connectionString });
  const seenAt = new Date();
  await inventory.upsert([
    {
      certificateName: "www-ari",
      id: 4242,
      source: "created",
      serviceExpiry: new Date(Date.now() + 60 * DAY_MS),
      seenAt,
    },
  ]);
  await inventory.recordAri?.("www-ari", {
    certId: "aaa.bbb",
    directoryUrl: "https://ca.example/directory",
    start: new Date(Date.now() - HOUR_MS),
    end: new Date(Date.now() + DAY_MS),
    explanationUrl: "https://ca.example/incident\u001b[2J",
    askedAt: seenAt,
    nextAskAt: new Date(Date.now() + HOUR_MS),
  });
}, 120_000);
afterAll(async () => {
  await sim?.close();
  await azurite?.stop();
});

describe("certsched status with an ARI window", () => {
  it("a line under the table, the explanation made safe; --json has ari", async () => {
    const env = { AzureWebJobsStorage: azurite.connectionString };
    const text = await cliAgainst(sim, ["status", "--offline"], { env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /www-ari: ARI window \d{4}-\d\d-\d\d\.\.\d{4}-\d\d-\d\d \(renew now\), explained at https:\/\/ca\.example\/incident%1B\[2J/,
    );
    expect(text.stdout).not.toContain("\u001b[2J");

    const json = await cliAgainst(sim, ["status", "--offline", "--json"], { env });
    const doc = jsonOf<{ certificates: { certificateName: string; ari: unknown }[] }>(json);
    expect(doc.certificates.find((c) => c.certificateName === "www-ari")?.ari).toMatchObject({
      renewNow: true,
      explanationUrl: "https://ca.example/incident%1B[2J",
    });
  }, 60_000);
});
