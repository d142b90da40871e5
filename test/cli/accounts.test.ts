import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import {
  accountsEntries,
  overAccounts,
  requestedAccount,
  selectAccounts,
  withAccount,
} from "../../cli/accounts.js";
import { UsageError } from "../../shared/lib/errors.js";

const declared = (...names: string[]) => ({ accounts: names.map((name) => ({ name })) });

describe("selectAccounts", () => {
  it("without --account: every account for sweep-like commands, the only one for the others", () => {
    expect(selectAccounts(declared("a", "b"), undefined, "sweep", "each")).toEqual(["a", "b"]);
    expect(selectAccounts(declared("default"), undefined, "get", "one")).toEqual(["default"]);
  });

  it("with --account: that one, whatever the scope", () => {
    expect(selectAccounts(declared("a", "b"), "b", "sweep", "each")).toEqual(["b"]);
    expect(selectAccounts(declared("a", "b"), "a", "renew", "one")).toEqual(["a"]);
  });

  it("an unknown name is a UsageError of the command listing the known ones", () => {
    const error = (() => {
      try {
        selectAccounts(declared("a", "b-c"), "x\u001b[31m", "due", "each");
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).command).toBe("due");
    expect((error as UsageError).message).toMatch(
      /^--account '.*' is unknown: the accounts are 'a', 'b-c'$/,
    );
    // The name given is shown on one line, escaped: it cannot forge terminal output.
    expect((error as UsageError).message).not.toContain("\u001b");
  });

  it("one-account commands need --account when several are declared, naming them", () => {
    expect(() => selectAccounts(declared("a", "b"), undefined, "create", "one")).toThrow(
      "create acts on one account: name it with --account NAME (the accounts are 'a', 'b')",
    );
  });
});

describe("overAccounts", () => {
  it("runs at most `concurrency` accounts at once, keeps declaration order, isolates failures", async () => {
    const names = Array.from({ length: 12 }, (_, i) => `acct-${i + 1}`);
    let running = 0;
    let peak = 0;
    const outcomes = await overAccounts(names, 3, async (name) => {
      running += 1;
      peak = Math.max(peak, running);
      await sleep(5 + (names.indexOf(name) % 4) * 3);
      running -= 1;
      if (name === "acct-7") throw new Error("refused");
      return name.toUpperCase();
    });
    expect(peak).toBe(3);
    expect(outcomes.map((o) => o.account)).toEqual(names);
    expect(outcomes.filter((o) => !o.ok).map((o) => o.account)).toEqual(["acct-7"]);
    expect(outcomes.find((o) => o.account === "acct-1")).toEqual({
      account: "acct-1",
      ok: true,
      value: "ACCT-1",
    });
  });
});

describe("the JSON helpers", () => {
  it("withAccount puts the account first; accountsEntries says which failed and why", () => {
    expect(Object.keys(withAccount("a", { certificateName: "www" }))).toEqual([
      "account",
      "certificateName",
    ]);
    const entries = accountsEntries(
      [
        { account: "a", ok: true, value: 1 },
        { account: "b", ok: false, error: new Error("x") },
      ],
      [{ account: "b", message: "refused" }],
    );
    expect(entries).toEqual([
      { name: "a", failed: false, problems: [] },
      { name: "b", failed: true, problems: ["refused"] },
    ]);
  });

  it("requestedAccount reads --account only as a string", () => {
    expect(requestedAccount({ values: { account: "a" }, positionals: [] })).toBe("a");
    expect(requestedAccount({ values: {}, positionals: [] })).toBeUndefined();
  });
});
