import { describe, expect, it } from "vitest";
import {
  issuanceLines,
  issuanceNotes,
  issuancesJson,
} from "../../../cli/commands/statusIssuances.js";
import { palette } from "../../../cli/output/color.js";
import { issuanceStatusOf } from "../../../shared/core/status/issuanceStatus.js";
import { readIssuanceStatus } from "../../../shared/usecases/listStatus.js";
import { everyState, failingStore, seenIssuance, storeWith } from "../../support/seenIssuances.js";

const NOW = new Date("2026-06-01T12:00:00.000Z");
const plain = palette({ isTTY: false } as never, {});
const red = palette({ isTTY: true } as never, {});

describe("certsched status: unexpected issuances", () => {
  it("one red line per account with unexpected ones, naming them; acknowledged is not red", async () => {
    const store = await storeWith([...everyState("contoso"), ...everyState("fabrikam")]);
    const read = await Promise.all(
      ["contoso", "fabrikam"].map(async (account) => ({
        account,
        issuances: await readIssuanceStatus(store, account),
      })),
    );
    const lines = issuanceLines(read, true, red, 200);
    const redLines = lines.filter((l) => l.startsWith("\u001b[31m"));
    expect(redLines).toEqual([
      "\u001b[31mcontoso: 1 unexpected certificate issuance (not acknowledged): certsched ct\u001b[39m",
      "\u001b[31mfabrikam: 1 unexpected certificate issuance (not acknowledged): certsched ct\u001b[39m",
    ]);
    const text = lines.join("\n");
    expect(text).toContain('issuance u1 for "contoso.com" of account "contoso"');
    for (const other of ["a1", "p1", "e1"]) expect(text).not.toContain(`issuance ${other} `);
  });

  it("one account: no account prefix; at most three named, then how many more", async () => {
    const items = Array.from({ length: 4 }, (_, i) => seenIssuance({}, { id: `u${i}` }));
    const lines = issuanceLines(
      [{ account: "contoso", issuances: issuanceStatusOf("contoso", { items, invalid: [] }) }],
      false,
      plain,
      undefined,
    );
    expect(lines[0]).toBe("");
    expect(lines[1]).toBe("4 unexpected certificate issuances (not acknowledged): certsched ct");
    expect(lines.filter((l) => l.trim().startsWith("issuance "))).toHaveLength(3);
    expect(lines.at(-1)?.trim()).toBe("and 1 more");
  });

  it("nothing at all when nothing is unexpected, or there is no store", async () => {
    const [, acknowledged] = everyState();
    const store = await storeWith(acknowledged ? [acknowledged] : []);
    const read = [
      { account: "contoso", issuances: await readIssuanceStatus(store, "contoso") },
      { account: "storage-only", issuances: undefined },
    ];
    expect(issuanceLines(read, true, red, 80)).toEqual([]);
  });

  it("a hostile name cannot break the line or drive the terminal", () => {
    const hostile = seenIssuance({}, { dnsNames: ["evil\n\u001b]0;owned\u0007.contoso.com"] });
    const lines = issuanceLines(
      [
        {
          account: "contoso",
          issuances: issuanceStatusOf("contoso", { items: [hostile], invalid: [] }),
        },
      ],
      false,
      plain,
      undefined,
    );
    expect(lines.join("\n")).not.toContain("\u001b]0;");
    expect(lines.filter((l) => l.startsWith("]0;") || l.startsWith(".contoso"))).toEqual([]);
  });

  it("--json: unexpected and pending, each naming its account; a failing store is a note", async () => {
    const store = await storeWith(everyState("contoso"));
    const read = [
      { account: "contoso", issuances: await readIssuanceStatus(store, "contoso") },
      {
        account: "fabrikam",
        issuances: await readIssuanceStatus(failingStore("down"), "fabrikam"),
      },
    ];
    const json = issuancesJson(read, NOW);
    expect(json.unexpected.map((v) => [v.account, v.id, v.state])).toEqual([
      ["contoso", "u1", "unexpected"],
    ]);
    expect(json.pending.map((v) => [v.account, v.id, v.state])).toEqual([
      ["contoso", "p1", "pending"],
    ]);
    expect(json.problems).toEqual(["Certificate Transparency issuances could not be read: down"]);
    expect(issuanceNotes(read, true)).toEqual([
      "account fabrikam: Certificate Transparency issuances could not be read: down",
    ]);
  });
});
