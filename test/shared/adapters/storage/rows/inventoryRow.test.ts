import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  fromInventoryRow,
  INVENTORY_SOURCES,
  inventoryRowKey,
  MAX_SAN_NAMES,
  MAX_TEXT,
  toInventoryRow,
} from "../../../../../shared/adapters/storage/rows/inventoryRow.js";
import type {
  InventoryRecord,
  VerificationRecord,
} from "../../../../../shared/core/ports/inventory.js";
import { STATUSES } from "../../../../../shared/core/verification/judge.js";
import { propertyRuns } from "../../../../support/fastCheck.js";

/** Characters a Table storage key may not hold (Azure's rule): / \ # ? and control characters. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
const NOT_IN_KEYS = /[/\\#?\u0000-\u001f\u007f-\u009f]/;

// Whole milliseconds between 1970 and 9999: what ISO-8601 round-trips.
const instant = fc.date({
  min: new Date(0),
  max: new Date("9999-12-31T23:59:59.999Z"),
  noInvalidDate: true,
});
const text = fc.string({ unit: "binary", maxLength: 40 });

const verification: fc.Arbitrary<VerificationRecord> = fc.record(
  {
    at: instant,
    status: fc.constantFrom(...STATUSES, "unverifiable" as const),
    critical: fc.boolean(),
    source: fc.constantFrom("tls" as const, "keyvault" as const),
    domain: text,
    servedNotAfter: instant,
    daysLeft: fc.integer({ min: -100_000, max: 100_000 }),
    issuer: text,
    thumbprint: fc.stringMatching(/^[0-9A-F]{64}$/),
    pubkeySha256: fc.stringMatching(/^[0-9a-f]{64}$/),
    tbsSha256: fc.stringMatching(/^[0-9a-f]{64}$/),
    sha1Thumbprint: fc.stringMatching(/^[0-9A-F]{40}$/),
    detail: text,
    unreachableSince: instant,
  },
  { requiredKeys: ["at", "status", "source", "domain", "detail"] },
);

const record: fc.Arbitrary<InventoryRecord> = fc.record(
  {
    certificateName: fc.string({ unit: "binary", minLength: 1, maxLength: 60 }),
    id: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    subscriptionId: text,
    target: text,
    renewal: text,
    rootDomain: text,
    sanNames: fc.array(text, { maxLength: 5 }),
    keyVaultName: text,
    keyVaultCertificateName: text,
    serviceExpiry: instant,
    source: fc.constantFrom(...INVENTORY_SOURCES),
    firstSeen: instant,
    lastSeen: instant,
    lastVerification: verification,
  },
  { requiredKeys: ["certificateName", "source", "firstSeen", "lastSeen"] },
);

describe("inventory rows", () => {
  it("a record survives the row and back, whatever its text (property)", () => {
    fc.assert(
      fc.property(record, (r) => {
        // What the table sends back: the row as JSON, with its keys.
        const row = JSON.parse(JSON.stringify(toInventoryRow(r))) as Record<string, unknown>;
        expect(fromInventoryRow(row, "t")).toEqual(r);
      }),
      { numRuns: propertyRuns(300) },
    );
  });

  it("row keys hold no character a key may not, and two names never share one (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 30 }),
        fc.string({ unit: "binary", maxLength: 30 }),
        (a, b) => {
          const key = inventoryRowKey(a);
          expect(key).not.toMatch(NOT_IN_KEYS);
          if (a !== b) expect(inventoryRowKey(b)).not.toBe(key);
        },
      ),
      { numRuns: propertyRuns(1000) },
    );
  });

  it("a lone surrogate (JSON can carry one) has a key of its own", () => {
    expect(inventoryRowKey("a\uD800")).toBe("a%uD800");
    expect(inventoryRowKey("a\uD83D\uDE00")).toBe("a%F0%9F%98%80");
    expect(inventoryRowKey("%uD800")).toBe("%25uD800");
  });

  it("long texts are cut to MAX_TEXT, SAN names to MAX_SAN_NAMES", () => {
    const row = toInventoryRow({
      certificateName: "c",
      source: "watch",
      firstSeen: new Date(0),
      lastSeen: new Date(0),
      rootDomain: "x".repeat(MAX_TEXT + 5),
      sanNames: Array.from({ length: MAX_SAN_NAMES + 3 }, (_, i) => `n${i}`),
    });
    expect(row.rootDomain).toHaveLength(MAX_TEXT);
    expect(JSON.parse(row.sanNames ?? "[]")).toHaveLength(MAX_SAN_NAMES);
  });

  it("a row written before the SHA-1 thumbprint was kept still reads, without one", () => {
    const at = new Date("2026-01-01T00:00:00.000Z");
    const row = toInventoryRow({
      certificateName: "c",
      source: "watch",
      firstSeen: at,
      lastSeen: at,
      lastVerification: { at, status: "ok", source: "tls", domain: "a.test", detail: "d" },
    });
    expect(JSON.parse(row.verification ?? "{}")).not.toHaveProperty("sha1Thumbprint");
    const read = fromInventoryRow(JSON.parse(JSON.stringify(row)), "t");
    expect(read.lastVerification).toEqual({
      at,
      status: "ok",
      source: "tls",
      domain: "a.test",
      detail: "d",
    });
  });

  it("a stored SHA-1 thumbprint that is not 40 upper-case hex reads as absent", () => {
    const at = new Date("2026-01-01T00:00:00.000Z");
    const sha1 = "AB".repeat(20);
    const row = toInventoryRow({
      certificateName: "c",
      source: "watch",
      firstSeen: at,
      lastSeen: at,
      lastVerification: {
        at,
        status: "ok",
        source: "tls",
        domain: "a",
        detail: "d",
        sha1Thumbprint: sha1,
      },
    });
    expect(fromInventoryRow({ ...row }, "t").lastVerification?.sha1Thumbprint).toBe(sha1);
    const bad = { ...row, verification: row.verification?.replace(sha1, "<b>not a print</b>") };
    expect(fromInventoryRow(bad, "t").lastVerification).not.toHaveProperty("sha1Thumbprint");
  });
});
