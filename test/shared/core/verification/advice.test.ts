import { describe, expect, it } from "vitest";
import { adviceFor } from "../../../../shared/core/verification/advice.js";
import { STATUSES } from "../../../../shared/core/verification/judge.js";

describe("what to do about each status (the CLI's cause lines)", () => {
  it("every status but ok says what to do", () => {
    for (const status of STATUSES.filter((s) => s !== "ok")) {
      expect(adviceFor(status, false), status).toMatch(/\.$/);
    }
    expect(adviceFor("ok", false)).toBeUndefined();
  });

  it("untrusted covers both of its causes: a chain browsers do not trust, a certificate not valid yet", () => {
    const advice = adviceFor("untrusted", false);
    expect(advice).toContain("NODE_EXTRA_CA_CERTS");
    expect(advice).toContain("CERT_NOT_YET_VALID");
  });

  it("critical expiring says renew now; non-critical waits for the sweep", () => {
    expect(adviceFor("expiring", true)).toContain("renew now");
    expect(adviceFor("expiring", false)).toContain("the sweep renews");
  });
});
