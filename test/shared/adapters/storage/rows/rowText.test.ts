import { describe, expect, it } from "vitest";
import { z } from "zod";
import { instant, jsonText } from "../../../../../shared/adapters/storage/rows/rowText.js";

describe("instant", () => {
  it("reads an ISO-8601 UTC date-time as that Date", () => {
    const read = instant.parse("2026-11-23T03:00:00.000Z");
    expect(read).toBeInstanceOf(Date);
    expect(read.toISOString()).toBe("2026-11-23T03:00:00.000Z");
  });

  it.each(["2026-11-23", "23/11/2026 03:00", "2026-11-23T03:00:00+01:00", ""])(
    "refuses %j, saying what it must be",
    (text) => {
      const parsed = instant.safeParse(text);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe("must be an ISO-8601 UTC date-time");
    },
  );

  it("refuses what is not text", () => {
    expect(instant.safeParse(1_700_000_000_000).success).toBe(false);
  });
});

describe("jsonText", () => {
  const counts = jsonText(z.record(z.string(), z.number()));

  it("reads JSON text as the schema's output", () => {
    expect(counts.parse('{"renewed":2,"failed":0}')).toEqual({ renewed: 2, failed: 0 });
  });

  it("gives the schema's output, transforms included", () => {
    expect(jsonText(z.array(instant)).parse('["2026-11-23T03:00:00.000Z"]')).toEqual([
      new Date("2026-11-23T03:00:00.000Z"),
    ]);
  });

  it.each([
    ["text that is not JSON", "{renewed: 2"],
    ["JSON of another shape", '{"renewed":"two"}'],
    ["JSON null", "null"],
  ])("refuses %s with one plain message", (_, text) => {
    const parsed = counts.safeParse(text);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.message)).toEqual([
      "must be JSON of the documented shape",
    ]);
  });

  it("refuses what is not text", () => {
    expect(counts.safeParse({ renewed: 2 }).success).toBe(false);
  });
});
