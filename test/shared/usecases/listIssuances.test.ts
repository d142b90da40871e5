import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TransparencyStore } from "../../../shared/core/ports/transparency.js";
import {
  issuanceCounts,
  listIssuances,
  parseSince,
} from "../../../shared/usecases/listIssuances.js";
import { propertyRuns } from "../../support/fastCheck.js";
import { expectedByKey, hoursAfter, pendingFor, seen, storeWith } from "../../support/issuances.js";

const NOW = hoursAfter(10);

const items = [
  seen({ id: "old", hours: 1, verdict: expectedByKey() }),
  seen({ id: "new", hours: 6 }),
  seen({ id: "wait", hours: 3, verdict: pendingFor() }),
  seen({
    id: "done",
    hours: 2,
    acknowledged: { at: hoursAfter(4), by: "cli", reason: "known" },
    issuance: { notAfter: hoursAfter(9) },
  }),
  seen({ account: "other", id: "elsewhere", hours: 8 }),
];

const portsOf = (transparency: Pick<TransparencyStore, "list">, account = "default") => ({
  account,
  transparency,
  now: () => NOW,
});

describe("listIssuances", () => {
  it("lists the account's issuances newest first, each in its state, expired shown", async () => {
    const listed = await listIssuances(portsOf(await storeWith(items)));

    expect(listed.issuances.map((v) => [v.id, v.state, v.expired])).toEqual([
      ["new", "unexpected", false],
      ["wait", "pending", false],
      ["done", "acknowledged", true],
      ["old", "expected", false],
    ]);
    expect(listed.warnings).toEqual([]);
    expect(issuanceCounts(listed.issuances)).toEqual({
      expected: 1,
      pending: 1,
      unexpected: 1,
      acknowledged: 1,
    });
  });

  it("narrows by since and by state", async () => {
    const ports = portsOf(await storeWith(items));

    const since = await listIssuances(ports, { since: hoursAfter(3) });
    expect(since.issuances.map((v) => v.id)).toEqual(["new", "wait"]);
    const acknowledged = await listIssuances(ports, { state: "acknowledged" });
    expect(acknowledged.issuances.map((v) => v.id)).toEqual(["done"]);
    const none = await listIssuances(ports, { since: hoursAfter(4), state: "expected" });
    expect(none.issuances).toEqual([]);
  });

  it("orders newest first even when the store does not, and passes its unread rows on", async () => {
    const store = await storeWith(items);
    const shuffled: Pick<TransparencyStore, "list"> = {
      list: async (account, options) => {
        const read = await store.list(account, options);
        return { items: [...read.items].reverse(), invalid: ["row 7: verdict is unknown"] };
      },
    };
    const listed = await listIssuances(portsOf(shuffled));

    expect(listed.issuances.map((v) => v.id)).toEqual(["new", "wait", "done", "old"]);
    expect(listed.warnings).toEqual(["row 7: verdict is unknown"]);
  });
});

describe("parseSince", () => {
  it.each([
    ["2026-11-20", "2026-11-20T00:00:00.000Z"],
    ["2026-11-20T09:30:00Z", "2026-11-20T09:30:00.000Z"],
    ["2026-11-20T09:30Z", "2026-11-20T09:30:00.000Z"],
    ["2026-11-20T09:30:00.250+02:00", "2026-11-20T07:30:00.250Z"],
    ["2024-02-29", "2024-02-29T00:00:00.000Z"],
    ["6h", "2026-11-20T12:00:00.000Z"],
    ["P1D", "2026-11-19T18:00:00.000Z"],
  ])("%s is %s", (text, iso) => {
    expect(parseSince(text, NOW)?.toISOString()).toBe(iso);
  });

  it.each([
    "yesterday",
    "",
    "2026-02-30",
    "2025-02-29",
    "2026-13-01",
    "2026-11-20T24:00:00Z",
    "2026-11-20T09:30:00",
    "1969-12-31",
    "20261120",
  ])("%j is not a since", (text) => {
    expect(parseSince(text, NOW)).toBeUndefined();
  });

  it("reads back every instant it writes, and every calendar day", () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date("1970-01-01T00:00:00Z"),
          max: new Date("9999-12-31T23:59:59Z"),
          noInvalidDate: true,
        }),
        (at) => {
          expect(parseSince(at.toISOString(), NOW)?.getTime()).toBe(at.getTime());
          const day = at.toISOString().slice(0, 10);
          expect(parseSince(day, NOW)?.toISOString().slice(0, 10)).toBe(day);
        },
      ),
      { numRuns: propertyRuns(500) },
    );
  });

  it("never reads a day past the end of its month", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1970, max: 9999 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 29, max: 31 }),
        (year, month, day) => {
          const text = `${year}-${String(month).padStart(2, "0")}-${day}`;
          const read = parseSince(text, NOW);
          const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
          if (day > last) expect(read).toBeUndefined();
          else expect(read?.toISOString().slice(0, 10)).toBe(text);
        },
      ),
      { numRuns: propertyRuns(500) },
    );
  });
});
