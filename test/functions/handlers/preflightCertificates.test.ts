import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { preflightCertificates } from "../../../functions/preflightCertificates.js";
import { getServices } from "../../../shared/app/services.js";
import { CertschedError } from "../../../shared/lib/errors.js";
import { PREFLIGHT_SUMMARY_PREFIX } from "../../../shared/usecases/preflightAndNotify.js";
import { timer } from "../../support/invoke.js";
import {
  A,
  B,
  type PreflightApp,
  startPreflightApp,
  unreadableInventory,
} from "../../support/preflightApp.js";

/*
 * The preflight timer over two accounts' inventory tables (Azurite): each account's certificates
 * near their renewal window checked and stored, those far from it left alone; one account whose
 * inventory cannot be read fails the invocation after the other was checked, and is named.
 */

let app: PreflightApp;

beforeAll(async () => {
  app = await startPreflightApp();
  // The window: 20 days of the service's plus CERTSCHED_PREFLIGHT_DAYS (30) before it.
  await app.seed(A, [
    { name: "near", days: 10 },
    { name: "edge", days: 49 },
    { name: "far", days: 51 },
  ]);
  await app.seed(B, [{ name: "www", days: 5 }]);
}, 120_000);
afterAll(async () => {
  await app?.close();
});
afterEach(async () => {
  await app.configure();
  expect(app.leaks()).toEqual([]);
  app.logs.length = 0;
});

const run = () =>
  preflightCertificates(timer(), app.context("preflightCertificates")).then(
    () => undefined,
    (error: unknown) => error,
  );

const checked = async (account: string) =>
  (await getServices().forAccount(account).inventory.list()).items
    .filter((r) => r.lastPreflight)
    .map((r) => r.certificateName);

describe("the preflight timer", () => {
  it("checks every account's certificates near their window, stores them, leaves the others", async () => {
    expect(await run()).toBeUndefined();
    expect(await checked(A)).toEqual(["edge", "near"]);
    expect(await checked(B)).toEqual(["www"]);
    // One summary line per account, naming it (accounts are declared).
    for (const account of [A, B]) {
      expect(app.logs).toContainEqual(
        expect.stringContaining(`${PREFLIGHT_SUMMARY_PREFIX} (account ${account}):`),
      );
    }
    // Nothing reached either account's certificate service: preflight spends no request.
    for (const { sim } of app.accounts.accounts) expect(sim.requests).toEqual([]);
  });

  it("one account unreadable: the other is checked, the invocation fails with its error, naming it", async () => {
    await app.configure({
      inventory: (account) =>
        account === B ? unreadableInventory() : app.tableInventoryOf(account),
    });
    const before = (await getServices().forAccount(A).inventory.get("near"))?.lastPreflight?.at;
    const thrown = await run();
    expect(thrown).toBeInstanceOf(CertschedError);
    expect((thrown as CertschedError).code).toBe("INVENTORY_UNAVAILABLE");
    expect(app.logs).toContainEqual(
      expect.stringMatching(
        new RegExp(`^certsched preflight of account ${B} failed: .*503 Server Busy`),
      ),
    );
    // A was checked again, all the same.
    const after = (await getServices().forAccount(A).inventory.get("near"))?.lastPreflight?.at;
    expect(after?.getTime()).toBeGreaterThan(before?.getTime() ?? 0);
    expect(app.logs).toContainEqual(
      expect.stringContaining(`${PREFLIGHT_SUMMARY_PREFIX} (account ${A}):`),
    );
  });
});
