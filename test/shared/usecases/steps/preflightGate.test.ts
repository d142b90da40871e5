import { describe, expect, inject, it } from "vitest";
import { tableInventory } from "../../../../shared/adapters/storage/tableInventory.js";
import { noInventory, type PreflightRecord } from "../../../../shared/core/ports/inventory.js";
import { PREFLIGHT_FRESH_MS } from "../../../../shared/core/preflight/blocking.js";
import {
  blockedByPreflight,
  lastPreflights,
} from "../../../../shared/usecases/steps/preflightGate.js";
import { closedPort, collectingLogger, uniqueTableName } from "../../../support/app.js";

/** Where renewals meet the last preflight: the inventory rows over Azurite, and a dead storage. */

const NOW = new Date("2026-03-01T03:00:00.000Z");
const caaForbids = (at: Date): PreflightRecord => ({
  at,
  status: "will-fail",
  rootDomain: "www.contoso.com",
  checks: [{ check: "caa", status: "fail", reason: "caa-forbids", detail: '0 issue "other.ca"' }],
});

async function seeded() {
  const inventory = tableInventory({
    connectionString: inject("azuriteTableConnectionString"),
    tableName: uniqueTableName("gate"),
  });
  await inventory.upsert(
    ["checked", "unchecked"].map((certificateName) => ({
      certificateName,
      source: "due-list" as const,
      seenAt: NOW,
    })),
  );
  await inventory.recordPreflight(
    "checked",
    caaForbids(new Date(NOW.getTime() - PREFLIGHT_FRESH_MS)),
  );
  return inventory;
}

async function deadInventory() {
  const port = await closedPort();
  return tableInventory({
    connectionString: `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;TableEndpoint=http://127.0.0.1:${port}/devstoreaccount1;`,
    tableName: "certschedinventory",
    timeoutMs: 2_000,
  });
}

describe("lastPreflights (once a sweep)", () => {
  it("maps each certificate with a kept preflight to it; one without has none", async () => {
    const { log, lines } = collectingLogger();
    const kept = await lastPreflights(await seeded(), log);
    expect([...(kept?.keys() ?? [])]).toEqual(["checked"]);
    expect(kept?.get("checked")).toMatchObject({
      status: "will-fail",
      checks: [{ reason: "caa-forbids" }],
    });
    expect(lines).toEqual([]);
  });

  it("without storage: none (nothing blocks), and no warning", async () => {
    const { log, lines } = collectingLogger();
    expect(await lastPreflights(noInventory, log)).toBeUndefined();
    expect(lines).toEqual([]);
  });

  it("storage down: none, and a warning that says nothing is blocked", async () => {
    const { log, lines } = collectingLogger();
    expect(await lastPreflights(await deadInventory(), log)).toBeUndefined();
    expect(lines).toEqual([
      {
        level: "warn",
        message: expect.stringMatching(
          /^certsched: the inventory could not be read, so the last preflight is not consulted and nothing is blocked by it \(the service decides\): /,
        ),
      },
    ]);
  }, 30_000);
});

describe("blockedByPreflight (a renewal by name)", () => {
  it("names the reason while the preflight is at most a day old", async () => {
    const inventory = await seeded();
    const { log } = collectingLogger();
    expect(await blockedByPreflight(inventory, "checked", NOW, log)).toBe("caa-forbids");
    const later = new Date(NOW.getTime() + 1);
    expect(await blockedByPreflight(inventory, "checked", later, log)).toBeUndefined();
    expect(await blockedByPreflight(inventory, "unchecked", NOW, log)).toBeUndefined();
    expect(await blockedByPreflight(inventory, "unknown-name", NOW, log)).toBeUndefined();
    expect(await blockedByPreflight(undefined, "checked", NOW, log)).toBeUndefined();
  });

  it("storage down: nothing blocks, with a warning naming the certificate", async () => {
    const { log, lines } = collectingLogger();
    expect(await blockedByPreflight(await deadInventory(), "checked", NOW, log)).toBeUndefined();
    expect(lines.map((l) => l.message)).toEqual([
      expect.stringMatching(
        /^certsched: the inventory row of checked could not be read, so the last preflight/,
      ),
    ]);
  }, 30_000);
});
