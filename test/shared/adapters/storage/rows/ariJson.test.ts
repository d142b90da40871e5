import { describe, expect, it } from "vitest";
import {
  ariJson,
  fromAriJson,
  MAX_ARI_PROBLEM,
} from "../../../../../shared/adapters/storage/rows/ariJson.js";
import {
  fromInventoryRow,
  INVENTORY_PARTITION,
  inventoryRowKey,
  toInventoryRow,
} from "../../../../../shared/adapters/storage/rows/inventoryRow.js";
import type { AriRecord } from "../../../../../shared/core/ari/ariRecord.js";

const ari: AriRecord = {
  certId: "aaa.bbb",
  directoryUrl: "https://ca.example/dir",
  start: new Date("2026-12-01T00:00:00.000Z"),
  end: new Date("2026-12-03T00:00:00.000Z"),
  explanationUrl: "https://ca.example/why",
  askedAt: new Date("2026-11-30T00:00:00.000Z"),
  nextAskAt: new Date("2026-11-30T06:00:00.000Z"),
  problem: "renewalInfo: timed out",
  reportedAt: new Date("2026-11-30T00:00:00.000Z"),
};

describe("the inventory row's ari property", () => {
  it("reads back what it wrote", () => {
    expect(fromAriJson(ariJson(ari))).toEqual(ari);
    const { start: _s, end: _e, explanationUrl: _x, problem: _p, reportedAt: _r, ...bare } = ari;
    expect(fromAriJson(ariJson(bare))).toEqual(bare);
  });

  it("bounds the problem: 500 characters kept whole, 501 cut to 500 with an ellipsis", () => {
    expect(fromAriJson(ariJson({ ...ari, problem: "x".repeat(MAX_ARI_PROBLEM) }))?.problem).toBe(
      "x".repeat(MAX_ARI_PROBLEM),
    );
    const cut = fromAriJson(ariJson({ ...ari, problem: "x".repeat(MAX_ARI_PROBLEM + 1) }))?.problem;
    expect(cut).toHaveLength(MAX_ARI_PROBLEM);
    expect(cut?.endsWith("…")).toBe(true);
  });

  it("reads a property that is not right as absent, and the row still reads", () => {
    for (const bad of [
      "{",
      "[]",
      JSON.stringify({ ...JSON.parse(ariJson(ari)), explanationUrl: "javascript:alert(1)" }),
      JSON.stringify({ ...JSON.parse(ariJson(ari)), nextAskAt: "soon" }),
    ]) {
      expect(fromAriJson(bad)).toBeUndefined();
      const row = {
        ...toInventoryRow({
          certificateName: "www",
          source: "created",
          firstSeen: ari.askedAt,
          lastSeen: ari.askedAt,
        }),
        ari: bad,
      };
      expect(fromInventoryRow(row, "t").ari).toBeUndefined();
    }
  });

  it("is kept with the row both ways", () => {
    const row = toInventoryRow({
      certificateName: "www",
      source: "created",
      firstSeen: ari.askedAt,
      lastSeen: ari.askedAt,
      ari,
    });
    expect(row).toMatchObject({
      partitionKey: INVENTORY_PARTITION,
      rowKey: inventoryRowKey("www"),
    });
    expect(fromInventoryRow(row as unknown as Record<string, unknown>, "t").ari).toEqual(ari);
  });
});
