import { describe, expect, it } from "vitest";
import { renderReport } from "../../bench/report.js";
import { formatMs, interleaved, median, quantile } from "../../bench/stats.js";

describe("bench statistics", () => {
  it.each([
    [[5], 5],
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
    [[10, 10, 1000], 10],
  ])("median of %j is %d", (values, expected) => {
    expect(median(values)).toBe(expected);
  });

  it("takes quantiles by nearest rank, whatever the input order", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1
    expect(quantile(values, 0.5)).toBe(50);
    expect(quantile(values, 0.99)).toBe(99);
    expect(quantile(values, 1)).toBe(100);
    expect(quantile(values, 0)).toBe(1);
    expect(quantile([], 0.5)).toBeNaN();
    expect(() => quantile(values, 1.5)).toThrow(RangeError);
  });

  it("formats milliseconds for a person", () => {
    expect(formatMs(0.4213)).toBe("0.42 ms");
    expect(formatMs(38.14)).toBe("38.1 ms");
    expect(formatMs(1740)).toBe("1.74 s");
    expect(formatMs(104_512)).toBe("104.5 s");
    expect(formatMs(Number.NaN)).toBe("n/a");
  });

  it("interleaves variants round by round", async () => {
    const order: string[] = [];
    const samples = await interleaved(["a", "b"] as const, 3, (variant, round) => {
      order.push(`${variant}${round}`);
      return round;
    });
    expect(order).toEqual(["a0", "b0", "a1", "b1", "a2", "b2"]);
    expect(samples).toEqual({ a: [0, 1, 2], b: [0, 1, 2] });
  });
});

describe("bench report", () => {
  it("names a failed gate and a missed goal where a reader looks", () => {
    const text = renderReport({
      machine: {
        date: "2026-01-01T00:00:00.000Z",
        node: "v20.0.0",
        platform: "Linux",
        cpu: "Test CPU",
        cores: 2,
        memoryGiB: 4,
        loadAtStart: 0.5,
        commit: "abc1234",
      },
      sections: [
        {
          title: "Renewal sweep",
          rows: [{ measure: "Speed-up", value: "3.00x", goal: ">= 6.80x", met: false }],
          notes: ["a note"],
        },
      ],
      gates: [
        { name: "speed-up, N=120", ok: false, detail: "3.00x" },
        { name: "tokens, N=120", ok: true, detail: "2" },
      ],
      durationMs: 1000,
      appendix: "## Notes\n\n- appendix",
    });
    expect(text).toContain("**1 failed** (speed-up, N=120)");
    expect(text).toContain("| Speed-up | 3.00x | >= 6.80x | **missed** |");
    expect(text).toContain("| speed-up, N=120 | **FAIL** | 3.00x |");
    expect(text).toContain("| tokens, N=120 | pass | 2 |");
    expect(text).toContain("| CPU | Test CPU |");
  });
});
