import { describe, expect, it } from "vitest";
import type { PreflightCheck } from "../../../../shared/core/preflight/preflight.js";
import { accessCheck } from "../../../../shared/usecases/preflightChecks/accessCheck.js";
import type { CheckOutcome } from "../../../../shared/usecases/preflightChecks/checkTypes.js";

const outcome = (
  check: PreflightCheck["check"],
  extra: Partial<CheckOutcome> = {},
): CheckOutcome => ({ check: { check, status: "pass", detail: "" }, ...extra });

const refused401 = outcome("dns-zone", {
  check: { check: "dns-zone", status: "unknown", detail: "d" },
  refused: { status: 401, detail: "ARM refused the token (401 InvalidAuthenticationToken)" },
  armAnswered: false,
});
const refused403 = outcome("app-binding", {
  check: { check: "app-binding", status: "unknown", detail: "d" },
  refused: { status: 403, detail: "ARM refused reading app shop (403 AuthorizationFailed)" },
  armAnswered: false,
});

describe("access", () => {
  it.each([
    ["a 401 alone", [refused401], "credentials-refused"],
    ["a 403 alone", [refused403], "role-missing"],
    ["a 401 and a 403: the 401 wins", [refused403, refused401], "credentials-refused"],
  ] as const)("fails for %s", (_, outcomes, reason) => {
    const { check } = accessCheck(outcomes);
    expect(check).toMatchObject({ check: "access", status: "fail", reason });
  });

  it("says which checks were refused, and what was said", () => {
    expect(accessCheck([refused401, outcome("caa")]).check.detail).toBe(
      "certsched's credentials were refused (401) for dns-zone: ARM refused the token (401 InvalidAuthenticationToken)",
    );
    expect(accessCheck([refused403]).check.detail).toBe(
      "the app's identity lacks a role (403) for app-binding: ARM refused reading app shop (403 AuthorizationFailed)",
    );
  });

  it("passes when some ARM call was answered, even if another check could not decide", () => {
    const check = accessCheck([
      outcome("dns-zone", { armAnswered: true }),
      outcome("app-binding", { armAnswered: false }),
    ]).check;
    expect(check).toEqual({
      check: "access",
      status: "pass",
      detail: "Azure Resource Manager accepted certsched's credentials (dns-zone)",
    });
  });

  it("is unknown when ARM calls were made and none was answered", () => {
    expect(accessCheck([outcome("dns-zone", { armAnswered: false })]).check).toEqual({
      check: "access",
      status: "unknown",
      detail:
        "Azure Resource Manager did not answer (dns-zone): certsched's access could not be checked",
    });
  });

  it("passes, saying so, when no check needed ARM", () => {
    expect(accessCheck([outcome("caa"), outcome("http-challenge")]).check).toEqual({
      check: "access",
      status: "pass",
      detail: "no check needed Azure Resource Manager: there was no access to refuse",
    });
    expect(accessCheck([]).check.status).toBe("pass");
  });

  it("keeps its detail one line and within 299 characters, whatever a refusal said", () => {
    const long = outcome("dns-zone", {
      refused: { status: 401, detail: `line one\nline two ${"x".repeat(400)}` },
    });
    const { detail } = accessCheck([long]).check;
    expect(detail.length).toBe(299);
    expect(detail).not.toMatch(/\n/);
  });
});
