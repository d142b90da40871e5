import { describe, expect, it } from "vitest";
import { PREFLIGHT_ADVICE } from "../../../../shared/core/preflight/advice.js";
import {
  ALERT_DAYS,
  alertLine,
  changeOf,
  PREFLIGHT_ALERT_PREFIX,
} from "../../../../shared/core/preflight/changes.js";
import {
  FAIL_REASONS,
  type PreflightResult,
  type PreflightStatus,
} from "../../../../shared/core/preflight/preflight.js";

const at = new Date("2026-11-20T06:00:00Z");
const DAY = 86_400_000;

function result(status: PreflightStatus): PreflightResult {
  return {
    account: "contoso",
    certificateName: 'shop "main"',
    rootDomain: "shop.contoso.com",
    status,
    at,
    checks: [
      status === "will-fail"
        ? { check: "caa", status: "fail", reason: "caa-forbids", detail: "CAA at contoso.com" }
        : { check: "caa", status: status === "ready" ? "pass" : "unknown", detail: "" },
      { check: "access", status: "pass", detail: "" },
    ],
  };
}

describe("what a preflight change tells people", () => {
  it("tells a change into will-fail from anything else, with the check, reason and advice", () => {
    for (const before of [undefined, "ready", "unknown"] as const) {
      const change = changeOf(before, result("will-fail"), new Date(at.getTime() + 30 * DAY));
      expect(change).toEqual({
        account: "contoso",
        certificateName: 'shop "main"',
        rootDomain: "shop.contoso.com",
        kind: "will-fail",
        from: before,
        failures: [
          {
            check: "caa",
            reason: "caa-forbids",
            detail: "CAA at contoso.com",
            advice: PREFLIGHT_ADVICE["caa-forbids"],
          },
        ],
        daysLeft: 30,
      });
    }
  });

  it("tells a change back to ready from will-fail only", () => {
    expect(changeOf("will-fail", result("ready"), undefined)).toMatchObject({
      kind: "ready",
      from: "will-fail",
      failures: [],
    });
    expect(changeOf("unknown", result("ready"), undefined)).toBeUndefined();
    expect(changeOf(undefined, result("ready"), undefined)).toBeUndefined();
  });

  it("stays quiet while nothing changes, and for will-fail to unknown", () => {
    expect(changeOf("will-fail", result("will-fail"), undefined)).toBeUndefined();
    expect(changeOf("will-fail", result("unknown"), undefined)).toBeUndefined();
    expect(changeOf("ready", result("unknown"), undefined)).toBeUndefined();
  });

  it("has advice for every reason", () => {
    for (const reason of FAIL_REASONS) expect(PREFLIGHT_ADVICE[reason]).toMatch(/\w{4}/);
  });
});

describe("the alert line (infra/alerts/preflight-will-fail.kql)", () => {
  const expiring = (days: number) => new Date(at.getTime() + days * DAY);

  it("is written for a will-fail certificate with fewer than 25 days left", () => {
    expect(ALERT_DAYS).toBe(25);
    expect(alertLine(result("will-fail"), expiring(24))).toBe(
      `${PREFLIGHT_ALERT_PREFIX}certificate "shop \\"main\\"" of account "contoso" will fail to renew (caa-forbids) with 24 days left`,
    );
  });

  it("is not written at exactly 25 days, nor for another status or an unknown expiry", () => {
    expect(alertLine(result("will-fail"), expiring(25))).toBeUndefined();
    expect(alertLine(result("will-fail"), new Date(expiring(25).getTime() - 1))).toMatch(
      /with 24 days left$/,
    );
    expect(alertLine(result("unknown"), expiring(3))).toBeUndefined();
    expect(alertLine(result("ready"), expiring(3))).toBeUndefined();
    expect(alertLine(result("will-fail"), undefined)).toBeUndefined();
  });

  it("says so for an expired certificate too", () => {
    expect(alertLine(result("will-fail"), expiring(-2))).toMatch(/with -2 days left$/);
  });
});
