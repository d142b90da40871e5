import { describe, expect, it } from "vitest";
import {
  issuanceStatusOf,
  SHOWN_ISSUANCES,
  unexpectedIssuanceLines,
  unexpectedIssuancesLine,
  unreadableIssuances,
} from "../../../../shared/core/status/issuanceStatus.js";
import { everyState, seenIssuance } from "../../../support/seenIssuances.js";

describe("issuanceStatusOf", () => {
  it("keeps unexpected ones nobody acknowledged and pending ones; not acknowledged or expected", () => {
    const status = issuanceStatusOf("contoso", { items: everyState(), invalid: [] });
    expect(status.unexpected.map((s) => s.issuance.id)).toEqual(["u1"]);
    expect(status.pending.map((s) => s.issuance.id)).toEqual(["p1"]);
    expect(status.problems).toEqual([]);
  });

  it("names rows the store could not read", () => {
    const status = issuanceStatusOf("contoso", { items: [], invalid: ["row x: not a date"] });
    expect(status.problems).toEqual(["unreadable issuance: row x: not a date"]);
  });
});

describe("the red line", () => {
  it("none when nothing is unexpected (an acknowledged one is not)", () => {
    const [, acknowledged, pending, expected] = everyState();
    const items = [acknowledged, pending, expected].flatMap((s) => (s ? [s] : []));
    expect(unexpectedIssuancesLine(issuanceStatusOf("contoso", { items, invalid: [] }))).toBe(
      undefined,
    );
    expect(unexpectedIssuancesLine(unreadableIssuances("contoso", "down"))).toBe(undefined);
  });

  it("one, then many: the count, singular or plural, and where to look", () => {
    const one = issuanceStatusOf("contoso", { items: [seenIssuance()], invalid: [] });
    expect(unexpectedIssuancesLine(one)).toBe(
      "1 unexpected certificate issuance (not acknowledged): certsched ct",
    );
    const items = Array.from({ length: 5 }, (_, i) => seenIssuance({}, { id: `u${i}` }));
    const five = issuanceStatusOf("contoso", { items, invalid: [] });
    expect(unexpectedIssuancesLine(five)).toBe(
      "5 unexpected certificate issuances (not acknowledged): certsched ct",
    );
    const lines = unexpectedIssuanceLines(five);
    expect(lines).toHaveLength(SHOWN_ISSUANCES + 1);
    expect(lines[0]).toBe(
      'issuance u0 for "contoso.com" of account "contoso": shop.contoso.com by C=US, O=Let\'s Encrypt, CN=R11, valid 2026-05-30T09:00:00Z to 2026-08-28T09:00:00Z',
    );
    expect(lines.at(-1)).toBe("and 2 more");
  });
});
