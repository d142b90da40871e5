import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  type CheckStatus,
  checkDetail,
  countByStatus,
  failReasons,
  inCheckOrder,
  MAX_CHECK_DETAIL,
  PREFLIGHT_CHECKS,
  resultStatus,
} from "../../../../shared/core/preflight/preflight.js";
import { registerToken } from "../../../../shared/lib/redact/redact.js";

const statuses = (...s: CheckStatus[]) => s.map((status) => ({ status }));

describe("a certificate's preflight status (the contract's rule)", () => {
  it("is will-fail when any check fails, whatever else is unknown", () => {
    expect(resultStatus(statuses("pass", "unknown", "fail"))).toBe("will-fail");
    expect(resultStatus(statuses("fail"))).toBe("will-fail");
  });

  it("is unknown when none fails and one is unknown", () => {
    expect(resultStatus(statuses("pass", "unknown", "pass"))).toBe("unknown");
  });

  it("is ready when every check passes", () => {
    expect(resultStatus(statuses("pass", "pass"))).toBe("ready");
  });

  test.prop([fc.array(fc.constantFrom<CheckStatus>("pass", "fail", "unknown"))])(
    "follows the contract for any set of checks",
    (list) => {
      const expected = list.includes("fail")
        ? "will-fail"
        : list.includes("unknown")
          ? "unknown"
          : "ready";
      expect(resultStatus(statuses(...list))).toBe(expected);
    },
  );
});

describe("what a preflight run reports", () => {
  it("counts every status, zero included", () => {
    expect(
      countByStatus([{ status: "ready" }, { status: "will-fail" }, { status: "ready" }]),
    ).toEqual({ ready: 2, "will-fail": 1, unknown: 0 });
    expect(countByStatus([])).toEqual({ ready: 0, "will-fail": 0, unknown: 0 });
  });

  it("lists the failed checks' reasons in check order", () => {
    expect(
      failReasons({
        checks: [
          { check: "caa", status: "fail", reason: "caa-forbids", detail: "" },
          { check: "dns-zone", status: "unknown", detail: "" },
          { check: "access", status: "fail", reason: "role-missing", detail: "" },
        ],
      }),
    ).toEqual(["caa-forbids", "role-missing"]);
  });

  it("sorts checks into the contract's order", () => {
    const shuffled = [...PREFLIGHT_CHECKS].reverse().map((check) => ({ check }));
    expect(inCheckOrder(shuffled).map((c) => c.check)).toEqual([...PREFLIGHT_CHECKS]);
  });
});

describe("a check's detail", () => {
  it("is one line: control characters and newlines escaped", () => {
    const detail = checkDetail("first\nsecond\u001b[31m");
    expect(detail.includes("\n") || detail.includes("\u001b")).toBe(false);
    expect(detail).toContain("first");
  });

  it("keeps exactly MAX_CHECK_DETAIL characters, cuts one more", () => {
    expect(MAX_CHECK_DETAIL).toBe(299);
    const exact = "a".repeat(MAX_CHECK_DETAIL);
    expect(checkDetail(exact)).toBe(exact);
    const over = checkDetail("a".repeat(MAX_CHECK_DETAIL + 1));
    expect(over).toHaveLength(MAX_CHECK_DETAIL);
    expect(over.endsWith("…")).toBe(true);
  });

  it("never shows a token certsched holds", () => {
    const token = `eyJ${"x".repeat(40)}.eyJ${"y".repeat(40)}.${"z".repeat(40)}`;
    registerToken(token);
    expect(checkDetail(`ARM said: Bearer ${token} refused`)).not.toContain(token);
  });

  test.prop([fc.string({ maxLength: 2_000 })])(
    "is always under 300 characters, one line",
    (text) => {
      const detail = checkDetail(text);
      expect(detail.length).toBeLessThanOrEqual(MAX_CHECK_DETAIL);
      expect(detail).not.toMatch(/[\n\r]/);
    },
  );
});
