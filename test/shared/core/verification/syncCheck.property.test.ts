import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ServedCertificate } from "../../../../shared/core/ports/probes.js";
import { notSynced, type VaultVersion } from "../../../../shared/core/verification/syncCheck.js";
import { propertyRuns } from "../../../support/fastCheck.js";

/**
 * The not-synced rule over any dates (syncCheck.ts): a finding only for a different and older
 * certificate; pending exactly while less than the window has passed since the version's
 * creation; the detail always names the vault and the setting.
 */

const T0 = Date.parse("2026-06-01T00:00:00Z");
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const served = (notBefore: number, thumbprint: string): ServedCertificate => ({
  notBefore: new Date(notBefore),
  notAfter: new Date(notBefore + 90 * DAY),
  issuer: "CN=CA",
  subject: "CN=www.contoso.test",
  serial: "01",
  thumbprint,
  altNames: ["DNS:www.contoso.test"],
});

const hex = fc.stringMatching(/^[0-9A-F]{64}$/);

describe("notSynced: properties", () => {
  it("finds only an older, different certificate; pending iff since < window", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -200 * DAY, max: 200 * DAY }),
        fc.integer({ min: -200 * DAY, max: 200 * DAY }),
        fc.option(fc.integer({ min: -400 * DAY, max: 400 * DAY }), { nil: undefined }),
        fc.integer({ min: 60_000, max: 30 * DAY }),
        fc.integer({ min: -400 * DAY, max: 400 * DAY }),
        hex,
        hex,
        (servedAt, vaultAt, createdAt, windowMs, nowAt, a, b) => {
          const vault: VaultVersion = {
            name: "kv-prod/www",
            version: "0123456789abcdef0123",
            thumbprint: b,
            notBefore: new Date(T0 + vaultAt),
            notAfter: new Date(T0 + vaultAt + 90 * DAY),
            createdOn: createdAt === undefined ? undefined : new Date(T0 + createdAt),
          };
          const now = new Date(T0 + nowAt);
          const found = notSynced(served(T0 + servedAt, a), { now, syncWindowMs: windowMs, vault });
          if (a === b || servedAt >= vaultAt) {
            expect(found).toBeUndefined();
            return;
          }
          const since = nowAt - (createdAt ?? vaultAt);
          expect(found?.status).toBe(since < windowMs ? "pending" : "not-synced");
          expect(found?.detail).toContain("vault kv-prod/www holds version 0123456789abcdef…");
          expect(found?.detail).toContain("CERTSCHED_SYNC_WINDOW");
          expect(notSynced(served(T0 + servedAt, a), { now })).toBeUndefined();
        },
      ),
      { numRuns: propertyRuns(500) },
    );
  });
});
