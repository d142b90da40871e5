import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { jsonSyntaxLocation, parseJsonFile } from "../../cli/jsonLocation.js";

const runs = Number(process.env.FC_NUM_RUNS ?? 300);

describe("jsonSyntaxLocation", () => {
  it.each([
    ['{"a":1,}', 1, 8, "a comma before the closing brace"],
    ["[1,2,]", 1, 6, "a comma before the closing bracket"],
    ['{\n  "a": 1\n  "b": 2\n}', 3, 3, 'expected "," or "}"'],
    ['{"a": tru}', 1, 7, "expected a value"],
    ["{'a': 1}", 1, 2, "expected a property name in double quotes"],
    ['{"a": "b\nc"}', 1, 9, "a string holds a raw control character (a line break?)"],
    ['{"a": 1', 1, 8, "the text ends too early"],
    ["", 1, 1, "the text ends too early"],
    ['{"a": 1} x', 1, 10, "more text after the JSON value"],
    ['{"é": x}', 1, 7, "expected a value"],
    ['{"a": "\\q"}', 1, 8, "a backslash starts an invalid escape"],
  ])("%j: line %i, column %i, %s", (text, line, column, reason) => {
    expect(jsonSyntaxLocation(text)).toEqual({ line, column, reason });
  });

  test.prop([fc.json()], { numRuns: runs })("finds no error in valid JSON", (text) => {
    expect(jsonSyntaxLocation(text)).toBeUndefined();
  });

  const jsonish = fc.string({
    unit: fc.constantFrom(...'{}[],:"\\ \n1-0.eE+tfnulrasx\u0001'),
    maxLength: 30,
  });
  // A valid document with one character removed: errors where real typos put them.
  const damaged = fc
    .tuple(fc.json(), fc.nat())
    .map(
      ([text, n]) => text.slice(0, n % (text.length + 1)) + text.slice((n % (text.length + 1)) + 1),
    );

  test.prop([fc.oneof(fc.string({ maxLength: 40 }), jsonish, damaged)], { numRuns: runs })(
    "agrees with JSON.parse on whether a text is valid",
    (text) => {
      let valid = true;
      try {
        JSON.parse(text);
      } catch {
        valid = false;
      }
      expect(jsonSyntaxLocation(text) === undefined).toBe(valid);
    },
  );
});

describe("parseJsonFile", () => {
  it("accepts a UTF-8 byte-order mark", () => {
    expect(parseJsonFile('\ufeff{"Values":{}}')).toEqual({ ok: true, value: { Values: {} } });
  });

  it("names line and column and quotes nothing of the text", () => {
    const result = parseJsonFile('{\n  "password": "hunter2-secret",\n  oops\n}');

    expect(result).toEqual({
      ok: false,
      problem: "is not valid JSON: line 3, column 3: expected a property name in double quotes",
    });
  });
});
