import { describe, expect, it } from "vitest";
import { DAY_MS, HOUR_MS, MINUTE_MS, parseDuration, SECOND_MS } from "../../../shared/lib/time.js";

describe("time constants", () => {
  it("are milliseconds, each unit the next one's multiple", () => {
    expect(SECOND_MS).toBe(1_000);
    expect(MINUTE_MS).toBe(60 * SECOND_MS);
    expect(HOUR_MS).toBe(60 * MINUTE_MS);
    expect(DAY_MS).toBe(86_400_000);
  });
});

describe("parseDuration: the durations a setting may be written in", () => {
  it.each([
    ["2h", 2 * HOUR_MS],
    ["90m", 90 * MINUTE_MS],
    ["45s", 45 * SECOND_MS],
    ["1d", DAY_MS],
    ["1h30m", 90 * MINUTE_MS],
    ["250ms", 250],
    ["1.5s", 1_500],
    ["2H", 2 * HOUR_MS],
    [" 30m ", 30 * MINUTE_MS],
    ["PT2H", 2 * HOUR_MS],
    ["pt90m", 90 * MINUTE_MS],
    ["PT1.5S", 1_500],
    ["P1D", DAY_MS],
    ["P1DT12H", 36 * HOUR_MS],
  ])("%j is %d ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["", "2", "h", "2 hours", "2h 30m", "-5m", "5m!", "P", "PT", "P1DT", "1w"])(
    "%j is not a duration",
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );
});
