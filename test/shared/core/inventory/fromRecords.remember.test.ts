import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCertificate } from "../../../../functions/createCertificate.js";
import { renewCertificate } from "../../../../functions/renewCertificate.js";
import { APP_SERVICE, KEY_VAULT } from "../../../../shared/core/certificate/fields.js";
import { type Inventory, memoryInventory } from "../../../../shared/core/ports/inventory.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { renewByName } from "../../../../shared/usecases/renewByName.js";
import { listDue } from "../../../../shared/usecases/sweep/list.js";
import { sweep } from "../../../../shared/usecases/sweep/sweep.js";
import { sweepCalls } from "../../../../shared/usecases/sweep/sweepCalls.js";
import { SweepRun } from "../../../../shared/usecases/sweep/sweepRun.js";
import {
  type AppHarness,
  collectingLogger,
  runtimeFor,
  startHarness,
} from "../../../support/app.js";
import { validCreateInputs } from "../../../support/createBodies.js";
import { httpRequest } from "../../../support/invoke.js";

/**
 * How certificates get into the inventory: the due list a sweep saw, a create, a renewal by
 * name. Storing them never fails the work it follows: a failing inventory is a warning.
 */

/** An inventory whose every write fails, as a storage account that is down. */
function failingInventory(): Inventory {
  const fail = async () => {
    throw new Error("inventory: cannot write table certschedinventory (503)");
  };
  return { ...memoryInventory(), kind: "table", upsert: fail, recordVerification: fail };
}

let app: AppHarness;
beforeAll(async () => {
  app = await startHarness({
    certificates: [
      {
        certificateName: "due-www",
        rootDomain: "www.remember.test",
        expiryDate: new Date(Date.now() + 5 * DAY_MS),
      },
      {
        certificateName: "due-vault",
        rootDomain: "vault.remember.test",
        target: KEY_VAULT,
        keyVaultName: "kv-remember",
        expiryDate: new Date(Date.now() + 6 * DAY_MS),
      },
      {
        certificateName: "later",
        rootDomain: "later.remember.test",
        expiryDate: new Date(Date.now() + 60 * DAY_MS),
      },
    ],
  });
});
beforeEach(() => app.sim.reset());
afterEach(() => {
  expect(app.leaks()).toEqual([]);
});
afterAll(() => app.close());

describe("a sweep remembers the records it listed", () => {
  it("with rootDomain, target and vault, what the summary does not carry", async () => {
    const inventory = memoryInventory();
    const runtime = runtimeFor(app.sim, {}, { inventory, ledger: memoryLedger() });
    try {
      const { log } = collectingLogger();
      await sweep(runtime, log, { dryRun: true, trigger: "cli" });
      const { items } = await inventory.list();
      expect(items.map((r) => r.certificateName)).toEqual(["due-vault", "due-www"]);
      expect(items[0]).toMatchObject({
        source: "due-list",
        target: KEY_VAULT,
        rootDomain: "vault.remember.test",
        keyVaultName: "kv-remember",
        keyVaultCertificateName: "due-vault",
        id: expect.any(Number),
        subscriptionId: expect.any(String),
        serviceExpiry: expect.any(Date),
      });
      expect(items[1]).toMatchObject({ target: APP_SERVICE, rootDomain: "www.remember.test" });
    } finally {
      await runtime.close();
    }
  });

  it("a failing inventory is a warning: the sweep renews and does not fail", async () => {
    const runtime = runtimeFor(
      app.sim,
      {},
      { inventory: failingInventory(), ledger: memoryLedger() },
    );
    try {
      const { log, lines } = collectingLogger();
      const summary = await sweep(runtime, log, { trigger: "cli" });
      expect(summary.failed).toBe(false);
      expect(summary.counts["renewal-scheduled"]).toBe(2);
      const warnings = lines.filter((l) => l.level === "warn").map((l) => l.message);
      expect(warnings).toContainEqual(
        expect.stringMatching(
          /^certsched could not update the inventory for due-www, due-vault \(the work itself is done.*\(503\)$/,
        ),
      );
    } finally {
      await runtime.close();
    }
  });

  it("the sweep's list stage writes what it listed to the inventory, rootDomain and all", async () => {
    const runtime = runtimeFor(app.sim);
    try {
      const inventory = memoryInventory();
      // Due whatever the tests before renewed.
      app.sim.addCertificate({
        certificateName: "tap-due",
        rootDomain: "tap.remember.test",
        expiryDate: new Date(Date.now() + 3 * DAY_MS),
      });
      const run = new SweepRun({ sweepDeadlineMs: 60_000 }, { trigger: "cli" });
      const calls = sweepCalls(runtime.client, run.context, run.deadline);
      const deps = { inventory, now: () => new Date() };
      const listed = await listDue(run, calls, deps, collectingLogger().log);
      run.renewalsOver();
      expect(listed.listing.kind).toBe("listed");
      expect(await listed.inventoryWrite).toBe(true);
      expect((await inventory.get("tap-due"))?.rootDomain).toBe("tap.remember.test");
    } finally {
      await runtime.close();
    }
  });
});

describe("create and renew by name remember the certificate", () => {
  it("POST /api/certificates: the request's name, target, rootDomain and vault", async () => {
    const inventory = memoryInventory();
    await app.configure({}, { inventory });
    const input = validCreateInputs().keyVault;
    const reply = await app.call(
      createCertificate,
      httpRequest({ path: "certificates", json: input }),
    );
    expect(reply.status).toBe(202);
    expect(await inventory.get(input.certificateName)).toMatchObject({
      source: "created",
      target: KEY_VAULT,
      rootDomain: input.rootDomain,
      keyVaultName: input.keyVaultName,
    });
  });

  it("POST /api/certificates with a failing inventory still answers 202", async () => {
    await app.configure({}, { inventory: failingInventory() });
    const reply = await app.call(
      createCertificate,
      httpRequest({ path: "certificates", json: validCreateInputs().appServiceHttp }),
    );
    expect(reply.status).toBe(202);
    expect(app.logs.some((l) => l.message.includes("could not update the inventory"))).toBe(true);
  });

  it("POST /api/certificates/{name}/renew: what Get Certificate said, source renewed", async () => {
    const inventory = memoryInventory();
    await app.configure({}, { inventory, ledger: memoryLedger() });
    const reply = await app.call(
      renewCertificate,
      httpRequest({ method: "POST", path: "certificates/later/renew", params: { name: "later" } }),
    );
    expect(reply.status).toBe(202);
    expect(await inventory.get("later")).toMatchObject({
      source: "renewed",
      target: APP_SERVICE,
      rootDomain: "later.remember.test",
      id: expect.any(Number),
    });
  });

  it("renewByName with a failing inventory: scheduled all the same, with a warning", async () => {
    const runtime = runtimeFor(
      app.sim,
      {},
      { inventory: failingInventory(), ledger: memoryLedger() },
    );
    try {
      const { log, lines } = collectingLogger();
      const renewed = await renewByName(runtime, "later", { trigger: "cli", by: "cli" }, log);
      expect(renewed).toMatchObject({ status: "scheduled", recorded: true });
      expect(
        lines.some((l) => l.message.includes("could not update the inventory for later")),
      ).toBe(true);
    } finally {
      await runtime.close();
    }
  });
});
