import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  declaredText,
  hasControlCharacters,
  MAX_FIELD_LENGTH,
  parseJsonSetting,
  parseList,
  quoted,
  textProblem,
} from "../../../../shared/app/config/declaredList.js";

/*
 * The rules every list of the renewal calendar shares: how a text field is checked, how what
 * an operator wrote is quoted back, how each problem is named.
 */

describe("quoted", () => {
  it.each([
    ["www", '"www"'],
    ["a\u001b[31mred", '"a\\u001b[31mred"'],
    ["line\nbreak", '"line\\u000abreak"'],
    ['say "hi"', '"say \\u0022hi\\u0022"'],
    ["right\u202eleft", '"right\\u202eleft"'],
  ])("%j is quoted as %s", (text, expected) => {
    expect(quoted(text)).toBe(expected);
  });

  it("cuts a long value after 40 characters", () => {
    const out = quoted("x".repeat(10_000));
    expect(out).toBe(`"${"x".repeat(40)}…"`);
  });
});

describe("textProblem", () => {
  it.each([
    ["x".repeat(MAX_FIELD_LENGTH + 1), "must be at most 200 characters (it has 201)"],
    ["x".repeat(10_000), "must be at most 200 characters (it has 10000)"],
    ["0 9 * * 1\u0000", "must not hold control characters"],
    ["Europe/Berlin\u2028", "must not hold control characters"],
    ["   ", "must not be blank"],
  ])("refuses %#: %s", (text, message) => {
    expect(textProblem(text)).toBe(message);
  });

  it("accepts ordinary text, and says nothing else", () => {
    expect(textProblem("x".repeat(MAX_FIELD_LENGTH))).toBeUndefined();
    expect(hasControlCharacters("Europe/Berlin")).toBe(false);
    expect(hasControlCharacters("tab\there")).toBe(true);
  });
});

const entry = z.strictObject({
  name: declaredText((text) => (text === "bad" ? "must not be bad" : undefined)),
  tags: z.array(declaredText()).optional(),
});
const what = { noun: "thing", entry, fields: "name and tags" };

describe("parseList", () => {
  it("labels each entry and trims its text", () => {
    const list = parseList([{ name: " a " }, { name: "b", tags: ["t"] }], "SETTING", what);

    expect(list.problems).toEqual([]);
    expect(list.entries).toEqual([
      { label: "SETTING[0]", value: { name: "a" } },
      { label: "SETTING[1]", value: { name: "b", tags: ["t"] } },
    ]);
  });

  it("names every problem by entry and field, with its rule", () => {
    const list = parseList(
      [
        { name: "bad" },
        {},
        { name: 3 },
        "x",
        { name: "ok", tags: ["", "y"] },
        { name: "ok", nmae: 1 },
      ],
      "SETTING",
      what,
    );

    expect(list.problems).toEqual([
      { name: "SETTING[0].name", message: "must not be bad" },
      { name: "SETTING[1].name", message: "is required" },
      { name: "SETTING[2].name", message: "must be a text (a JSON string)" },
      { name: "SETTING[3]", message: "must be a thing object" },
      { name: "SETTING[4].tags[0]", message: "must not be blank" },
      {
        name: "SETTING[5]",
        message: 'has an unknown field "nmae": the fields are name and tags',
      },
    ]);
    expect(list.entries).toEqual([]);
  });

  it("quotes an unknown field's name safely", () => {
    const list = parseList([{ name: "a", ["\u001b]0;x".padEnd(500, "y")]: 1 }], "S", what);

    const message = list.problems[0]?.message ?? "";
    expect(message).toContain('"\\u001b]0;xyy');
    expect(message).not.toContain("\u001b");
    expect(message.length).toBeLessThan(120);
  });

  it("refuses what is not an array, and more than 100 entries", () => {
    expect(parseList({ name: "a" }, "S", what).problems).toEqual([
      { name: "S", message: "must be a JSON array of thing objects" },
    ]);
    const many = Array.from({ length: 101 }, () => ({ name: "a" }));
    expect(parseList(many, "S", what).problems).toEqual([
      { name: "S", message: "must hold at most 100 entries (it has 101)" },
    ]);
  });
});

describe("parseJsonSetting", () => {
  it("parses JSON, and never quotes the text of a syntax error", () => {
    expect(parseJsonSetting("S", "[1]", "thing")).toEqual({ ok: true, value: [1] });
    const bad = parseJsonSetting("S", '[{"start": "secret-looking-text', "thing");
    expect(bad).toEqual({
      ok: false,
      problem: {
        name: "S",
        message: expect.stringMatching(
          /^is not valid JSON.*: it must be an array of thing objects$/,
        ),
      },
    });
    expect(JSON.stringify(bad)).not.toContain("secret-looking-text");
  });
});
