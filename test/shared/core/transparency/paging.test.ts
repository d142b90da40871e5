import { describe, expect, it } from "vitest";
import type { IssuancePage } from "../../../../shared/core/ports/transparency.js";
import type { Issuance } from "../../../../shared/core/transparency/issuance.js";
import {
  compareIds,
  MAX_PAGES_PER_NAME,
  pageProblem,
} from "../../../../shared/core/transparency/paging.js";

/** Pages whose ids go backwards or repeat cannot move the cursor. */

const item = (id: string): Issuance => ({
  id,
  dnsNames: ["www.contoso.com"],
  moreNames: 0,
  revoked: false,
  problems: [],
});
const page = (...ids: string[]): IssuancePage => ({
  kind: "page",
  issuances: ids.map(item),
  lastId: ids.at(-1),
  truncated: false,
  problems: [],
});

describe("compareIds", () => {
  it.each([
    ["9", "10", -1],
    ["10", "9", 1],
    ["007", "7", 0],
    ["0", "00", 0],
    ["123456789012345678901234567890", "123456789012345678901234567891", -1],
    ["99999999999999999999", "100000000000000000000", -1],
    ["abc", "abc", 0],
    ["abc", "abd", undefined],
    ["10", "x9", undefined],
  ])("%s vs %s: %s", (a, b, order) => {
    const compared = compareIds(a, b);
    expect(compared === undefined ? undefined : Math.sign(compared)).toBe(order);
  });
});

describe("pageProblem", () => {
  it.each([
    ["the first page", undefined, page("1", "2", "3"), undefined],
    ["a page after the cursor", "3", page("4", "10", "11"), "3"],
    ["the end (an empty page)", "11", page(), "11"],
    ["opaque ids, in any order", "k", page("b", "a"), "k"],
    ["ids beyond 2^53", "9007199254740993", page("9007199254740994"), undefined],
  ])("%s: no problem", (_, after, p, previous) => {
    expect(pageProblem(after, p, previous)).toBeUndefined();
  });

  it.each([
    [
      "a page that repeats",
      "11",
      page("9", "10", "11"),
      undefined,
      "the page asked after id 11 ends at 11 again: the watcher repeats its page",
    ],
    [
      "an opaque id that repeats",
      "k",
      page("k"),
      undefined,
      "the page asked after id k ends at k again: the watcher repeats its page",
    ],
    [
      "ids that go backwards",
      "100",
      page("98", "99"),
      undefined,
      "the ids go backwards: the page asked after id 100 ends at 99",
    ],
    [
      "the same page as the one before",
      undefined,
      page("5", "6"),
      "6",
      "the page before ended at id 6 and this one ends at 6 again: the watcher repeats its page",
    ],
    [
      "ids going backwards inside the page",
      "1",
      page("3", "2", "4"),
      undefined,
      "the ids in the page go backwards (3, then 2)",
    ],
    [
      "an id twice in the page",
      "1",
      page("2", "2", "4"),
      undefined,
      "the page holds the issuance id 2 twice",
    ],
    [
      "a page starting at the cursor",
      "5",
      page("5", "6"),
      undefined,
      "the page asked after id 5 starts at 5, which is not after it",
    ],
    [
      "numbers compared by value, not as text",
      "10",
      page("9"),
      undefined,
      "the ids go backwards: the page asked after id 10 ends at 9",
    ],
  ])("%s", (_, after, p, previous, problem) => {
    expect(pageProblem(after, p, previous)).toBe(problem);
  });

  it("a run reads at most 50 pages per name", () => {
    expect(MAX_PAGES_PER_NAME).toBe(50);
  });
});
