import { describe, expect, it } from "vitest";
import { hasLanded, stillServed } from "../../../../shared/core/verification/landing.js";

const EXPIRY = new Date("2026-12-01T00:00:00.000Z");
const OLD = "AA".repeat(32);
const NEW = "BB".repeat(32);

describe("hasLanded", () => {
  it("with the fingerprint from before: a different certificate landed, whatever its dates", () => {
    const renewal = { expiryAtRequest: EXPIRY, beforeThumbprint: OLD };
    expect(hasLanded(renewal, { thumbprint: NEW, notAfter: EXPIRY })).toBe(true);
    expect(
      hasLanded(renewal, { thumbprint: NEW, notAfter: new Date(EXPIRY.getTime() - 1000) }),
    ).toBe(true);
    expect(hasLanded(renewal, { thumbprint: OLD.toLowerCase(), notAfter: EXPIRY })).toBe(false);
  });

  it("without it: the date rule, a later notAfter by a millisecond landed, the same one did not", () => {
    const renewal = { expiryAtRequest: EXPIRY };
    expect(hasLanded(renewal, { thumbprint: NEW, notAfter: new Date(EXPIRY.getTime() + 1) })).toBe(
      true,
    );
    expect(hasLanded(renewal, { thumbprint: NEW, notAfter: EXPIRY })).toBe(false);
    expect(
      hasLanded({ ...renewal, beforeThumbprint: "" }, { thumbprint: NEW, notAfter: EXPIRY }),
    ).toBe(false);
  });

  it("says why it has not landed, by fingerprint or by date", () => {
    expect(
      stillServed(
        { expiryAtRequest: EXPIRY, beforeThumbprint: OLD },
        { thumbprint: OLD, notAfter: EXPIRY },
      ),
    ).toBe(
      `the certificate served is still the one from before the renewal (SHA-256 ${"AA".repeat(8)}…, expires 2026-12-01T00:00:00Z)`,
    );
    expect(stillServed({ expiryAtRequest: EXPIRY }, { thumbprint: OLD, notAfter: EXPIRY })).toBe(
      "the certificate served still expires at 2026-12-01T00:00:00.000Z, no later than before the renewal (2026-12-01T00:00:00.000Z)",
    );
  });
});
