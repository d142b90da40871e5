import { afterEach, describe, expect, it } from "vitest";
import { loadSettings } from "../../../shared/app/config/settings.js";
import { type AccountPorts, createAccountPorts } from "../../../shared/app/services.js";
import { dashboardSourcesOf, statusSourcesOf } from "../../../shared/app/sources.js";
import { memoryHistory } from "../../../shared/core/ports/history.js";
import { memoryInventory } from "../../../shared/core/ports/inventory.js";
import { type LedgerRecord, memoryLedger } from "../../../shared/core/ports/ledger.js";
import type { Env } from "../../../shared/core/settings.js";

const ENV: Env = {
  CERTSCHED_BASE_URL: "https://certs.example.com",
  CERTSCHED_SUBSCRIPTION: "portal-subscription",
  CERTSCHED_TENANT_ID: "tenant-1",
  CERTSCHED_CLIENT_ID: "client-1",
  CERTSCHED_CLIENT_SECRET: "client-secret-value-1",
};

const ROW: LedgerRecord = {
  id: 42,
  certificateName: "web",
  expiryAtRequest: new Date("2025-04-01T00:00:00.000Z"),
  firstRequestedAt: new Date("2025-03-01T00:00:00.000Z"),
  lastRequestedAt: new Date("2025-03-01T00:00:00.000Z"),
  outcome: "renewal-scheduled",
  attempts: 1,
  detail: undefined,
};

const built: AccountPorts[] = [];
afterEach(async () => {
  await Promise.all(built.splice(0).map((r) => r.close()));
});

/** A runtime with in-process storage, the ledger holding ROW. */
async function runtime(): Promise<AccountPorts> {
  const ledger = memoryLedger();
  await ledger.write(ROW, undefined);
  const made = createAccountPorts(loadSettings(ENV), {
    ledger,
    inventory: memoryInventory(),
    history: memoryHistory(),
  });
  built.push(made);
  return made;
}

describe("statusSourcesOf", () => {
  it("reads the runtime's inventory", async () => {
    const r = await runtime();
    expect(statusSourcesOf(r).inventory).toBe(r.inventory);
  });

  it("a ledger that is not a table has no rows to list, but is read by id", async () => {
    const sources = statusSourcesOf(await runtime());
    expect(await sources.ledgerRows()).toEqual({ items: [], invalid: [] });
    expect(await sources.ledgerRow?.(42)).toEqual(ROW);
    expect(await sources.ledgerRow?.(7)).toBeUndefined();
  });
});

describe("dashboardSourcesOf", () => {
  it("the status sources and the runtime's history", async () => {
    const r = await runtime();
    const sources = dashboardSourcesOf(r);
    expect(sources.history).toBe(r.history);
    expect(sources.status.inventory).toBe(r.inventory);
    expect(await sources.status.ledgerRow?.(42)).toEqual(ROW);
  });
});
