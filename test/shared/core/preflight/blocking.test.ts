import { describe, expect, it } from "vitest";
import {
  BLOCKING_REASONS,
  blockedWord,
  blockingReason,
  PREFLIGHT_FRESH_MS,
} from "../../../../shared/core/preflight/blocking.js";
import {
  FAIL_REASONS,
  type FailReason,
  type PreflightCheck,
} from "../../../../shared/core/preflight/preflight.js";

const at = new Date("2026-11-20T06:00:00Z");
const failing = (...reasons: FailReason[]) => ({
  at,
  status: "will-fail" as const,
  checks: reasons.map(
    (reason): PreflightCheck => ({ check: "caa", status: "fail", reason, detail: "" }),
  ),
});

describe("whether the last preflight blocks a renewal", () => {
  it("blocks for each reason only a person can fix, and for no other", () => {
    expect([...BLOCKING_REASONS].sort()).toEqual(
      ["app-missing", "caa-forbids", "dns-zone-missing", "hostname-not-bound"].sort(),
    );
    for (const reason of FAIL_REASONS) {
      expect(blockingReason(failing(reason), at)).toBe(
        BLOCKING_REASONS.includes(reason) ? reason : undefined,
      );
    }
  });

  it("names the first blocking reason in check order", () => {
    expect(
      blockingReason(failing("dns-not-delegated", "hostname-not-bound", "caa-forbids"), at),
    ).toBe("hostname-not-bound");
  });

  it("does not block a ready or unknown result, or none", () => {
    expect(blockingReason(undefined, at)).toBeUndefined();
    expect(blockingReason({ ...failing("caa-forbids"), status: "ready" }, at)).toBeUndefined();
    expect(blockingReason({ ...failing("caa-forbids"), status: "unknown" }, at)).toBeUndefined();
  });

  it("blocks for exactly a day, not a millisecond more", () => {
    expect(PREFLIGHT_FRESH_MS).toBe(86_400_000);
    const result = failing("caa-forbids");
    const dayLater = new Date(at.getTime() + PREFLIGHT_FRESH_MS);
    expect(blockingReason(result, dayLater)).toBe("caa-forbids");
    expect(blockingReason(result, new Date(dayLater.getTime() + 1))).toBeUndefined();
  });

  it("says it in the sweep's words", () => {
    expect(blockedWord("caa-forbids")).toBe("blocked (preflight: caa-forbids)");
  });
});
