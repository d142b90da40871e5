import { describe, expect, it } from "vitest";
import { accountSummary, emptyCounts } from "../../../../shared/core/status/accountSummary.js";

describe("accountSummary", () => {
  it("counts every word, the three that need a person, and the fewest days left", () => {
    const summary = accountSummary(
      "contoso",
      [
        { status: "failed", daysLeft: 12 },
        { status: "stuck", daysLeft: 4 },
        { status: "not-landed", daysLeft: 50 },
        { status: "ok", daysLeft: 80 },
        { status: "unknown", daysLeft: null },
        { status: "failed", daysLeft: 9 },
      ],
      { requests7d: 17 },
    );
    expect(summary).toEqual({
      name: "contoso",
      certificates: 6,
      counts: { ...emptyCounts(), failed: 2, stuck: 1, "not-landed": 1, ok: 1, unknown: 1 },
      failed: 2,
      stuck: 1,
      notLanded: 1,
      nextExpiryDays: 4,
      requests7d: 17,
    });
  });

  it("says an expired certificate's days as negative, and null when no expiry is known", () => {
    expect(accountSummary("a", [{ status: "expired", daysLeft: -3 }]).nextExpiryDays).toBe(-3);
    expect(accountSummary("a", [{ status: "unknown", daysLeft: null }]).nextExpiryDays).toBeNull();
    expect(accountSummary("a", []).nextExpiryDays).toBeNull();
  });

  it("carries a problem, and leaves out what is unknown", () => {
    const summary = accountSummary("a", [], { problem: "cannot read", requests7d: undefined });
    expect(summary.problem).toBe("cannot read");
    expect("requests7d" in summary).toBe(false);
  });
});
