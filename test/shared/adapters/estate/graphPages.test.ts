import { describe, expect, it } from "vitest";
import { MAX_WAIT_MS, quotaWait, waitOf } from "../../../../shared/adapters/estate/graphPages.js";

const answer = (headers: Record<string, string>) => new Response("{}", { headers });
const NOW = Date.parse("2026-12-02T12:00:00Z");

describe("Resource Graph's throttling headers", () => {
  it("Retry-After in seconds or as an HTTP date; anything else is none", () => {
    expect(waitOf(answer({ "retry-after": "12" }), () => NOW)).toBe(12_000);
    expect(waitOf(answer({ "retry-after": "Wed, 02 Dec 2026 12:00:30 GMT" }), () => NOW)).toBe(
      30_000,
    );
    expect(waitOf(answer({ "retry-after": "Wed, 02 Dec 2026 11:00:00 GMT" }), () => NOW)).toBe(0);
    expect(waitOf(answer({ "retry-after": "soon" }), () => NOW)).toBeUndefined();
    expect(waitOf(answer({}), () => NOW)).toBeUndefined();
  });

  it("a spent quota waits its reset (hh:mm:ss); quota left, no wait; a reset unreadable, past the bound", () => {
    const spent = (resets: string) =>
      quotaWait(
        answer({ "x-ms-user-quota-remaining": "0", "x-ms-user-quota-resets-after": resets }),
      );
    expect(spent("00:00:05")).toBe(5000);
    expect(spent("01:02:03")).toBe(3_723_000);
    expect(spent("later")).toBeGreaterThan(MAX_WAIT_MS);
    expect(quotaWait(answer({ "x-ms-user-quota-remaining": "14" }))).toBeUndefined();
    expect(quotaWait(answer({}))).toBeUndefined();
  });
});
