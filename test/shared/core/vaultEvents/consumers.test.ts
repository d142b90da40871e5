import { describe, expect, it } from "vitest";
import {
  consumersOf,
  MAX_RECHECK_GAP_MS,
  nextRecheck,
} from "../../../../shared/core/vaultEvents/consumers.js";
import type { InventoryResult } from "../../../../shared/core/verification/inventoryResult.js";

/** Which consumers serve a version (consumers.ts), and when to look again. */

const THUMB = "AB".repeat(32);
const OLD = "CD".repeat(32);

const tls = (domain: string, certificateName: string, thumbprint?: string): InventoryResult => ({
  domain,
  certificateName,
  source: "tls",
  status: thumbprint === undefined ? "unreachable" : "ok",
  ...(thumbprint === undefined ? {} : { thumbprint }),
  detail: "",
});

describe("consumersOf", () => {
  it("serving, behind and unread among the named certificates' TLS results, sorted and once each", () => {
    const results: InventoryResult[] = [
      tls("www.contoso.example", "www", THUMB.toLowerCase()),
      tls("api.contoso.example", "watch:api.contoso.example", OLD),
      tls("b.contoso.example", "www", THUMB),
      tls("b.contoso.example", "www", THUMB),
      tls("down.contoso.example", "www"),
      tls("other.example", "other", OLD),
      { ...tls("kv-contoso/www", "www", OLD), source: "keyvault" },
    ];
    expect(consumersOf(results, ["www", "watch:api.contoso.example"], THUMB)).toEqual({
      serving: ["b.contoso.example", "www.contoso.example"],
      behind: ["api.contoso.example"],
      unread: ["down.contoso.example"],
    });
    expect(consumersOf(results, [], THUMB)).toEqual({ serving: [], behind: [], unread: [] });
  });
});

describe("nextRecheck", () => {
  const now = new Date("2026-12-01T12:00:00Z");
  const at = (ms: number) => new Date(now.getTime() + ms);
  const until = at(24 * 3_600_000);
  const MIN = 60_000;

  it("first after firstMs, then twice as long each time, at most an hour", () => {
    const gaps = [1, 2, 3, 4, 5, 6, 7, 8, 60, 1_000_000].map(
      (attempt) => (nextRecheck(attempt, MIN, now, until)?.getTime() ?? 0) - now.getTime(),
    );
    expect(gaps).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60, 60].map((m) => m * MIN));
    expect(MAX_RECHECK_GAP_MS).toBe(60 * MIN);
  });

  it("never after until: the last one is until itself; none once now reaches it", () => {
    expect(nextRecheck(3, MIN, now, at(3 * MIN))).toEqual(at(3 * MIN));
    expect(nextRecheck(3, MIN, now, at(4 * MIN))).toEqual(at(4 * MIN));
    expect(nextRecheck(3, MIN, now, at(5 * MIN))).toEqual(at(4 * MIN));
    expect(nextRecheck(1, MIN, now, at(1))).toEqual(at(1));
    expect(nextRecheck(1, MIN, now, now)).toBeUndefined();
    expect(nextRecheck(1, MIN, at(1), now)).toBeUndefined();
  });

  it("an attempt below 1 or not a number counts as the first", () => {
    for (const attempt of [0, -3, Number.NaN]) {
      expect(nextRecheck(attempt, MIN, now, until)).toEqual(at(MIN));
    }
  });
});
