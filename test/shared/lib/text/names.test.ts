import { describe, expect, it } from "vitest";
import { shownName, someNames } from "../../../../shared/lib/text/names.js";

describe("someNames and shownName: a warning names the certificates not stored", () => {
  it.each([
    [[], ""],
    [["a"], "a"],
    [["a", "b", "c"], "a, b, c"],
    [["a", "b", "c", "d"], "a, b, c and 1 more"],
    [["a", "b", "c", "d", "e"], "a, b, c and 2 more"],
  ])("%j reads %j", (names, line) => {
    expect(someNames(names)).toBe(line);
  });

  it("shows a name of 200 characters whole, and the head and length of a longer one", () => {
    expect(shownName("n".repeat(200))).toBe("n".repeat(200));
    expect(shownName("n".repeat(201))).toBe(`${"n".repeat(200)}… (201 characters)`);
  });

  it("never cuts a surrogate pair in half", () => {
    const name = `${"n".repeat(199)}😀${"n".repeat(10)}`;
    expect(shownName(name)).toBe(`${"n".repeat(199)}… (211 characters)`);
  });
});
