import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { insertedAt } from "../../../../shared/adapters/storage/budgetRows.js";
import type { QuotaUsage } from "../../../../shared/core/ports/budget.js";
import type { InventoryRecord } from "../../../../shared/core/ports/inventory.js";
import type { LedgerRecord } from "../../../../shared/core/ports/ledger.js";
import { readFits, renewalFits } from "../../../../shared/core/quota/budgetRules.js";
import { DUE_WINDOW_MS, renewalNeed } from "../../../../shared/core/quota/renewalNeed.js";
import { deferralCause, TAKEN_BY_MORE_URGENT } from "../../../../shared/core/quota/sweepBudget.js";
import { propertyRuns } from "../../../support/fastCheck.js";

/** The rules of the shared request budget on their own: no storage involved. */

const WEEK_MS = 7 * 86_400_000;
const NOW = new Date("2026-03-01T03:00:00.000Z");

describe("what a read may take", () => {
  it("never past 80 %, never what due renewals need; a renewal may use the last request", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 0, max: 1_000_001 }),
        fc.integer({ min: 0, max: 1_000_001 }),
        (limit, used, need) => {
          const fits = readFits(used, need, limit);
          expect(fits).toBe(used * 5 <= limit * 4 && used + need <= limit);
          if (fits) {
            expect(used).toBeLessThanOrEqual(0.8 * limit);
            expect(used + need).toBeLessThanOrEqual(limit);
          }
          expect(renewalFits(used, limit)).toBe(used <= limit);
        },
      ),
      { numRuns: propertyRuns(1_000) },
    );
  });

  it.each([
    { used: 8, need: 0, limit: 10, fits: true },
    { used: 9, need: 0, limit: 10, fits: false },
    { used: 4, need: 6, limit: 10, fits: true },
    { used: 5, need: 6, limit: 10, fits: false },
    { used: 3, need: 0, limit: 3, fits: false },
    { used: 2, need: 0, limit: 3, fits: true },
  ])(
    "$used used (own included), need $need, limit $limit: fits $fits",
    ({ used, need, limit, fits }) => {
      expect(readFits(used, need, limit)).toBe(fits);
    },
  );

  it("a renewal fits up to the limit itself, not one more", () => {
    expect(renewalFits(10, 10)).toBe(true);
    expect(renewalFits(11, 10)).toBe(false);
  });
});

describe("what due renewals need", () => {
  const known = (name: string, expiry: Date | undefined): InventoryRecord => ({
    certificateName: name,
    serviceExpiry: expiry,
    source: "due-list",
    firstSeen: NOW,
    lastSeen: NOW,
  });
  const horizon = NOW.getTime() + DUE_WINDOW_MS + WEEK_MS;

  it("one list, and one renewal for each certificate due by the end of the window (the edge included)", () => {
    const inventory = [
      known("expired", new Date(NOW.getTime() - 86_400_000)),
      known("at-the-edge", new Date(horizon)),
      known("a-ms-later", new Date(horizon + 1)),
      known("no-expiry", undefined),
    ];
    expect(renewalNeed(inventory, [], NOW, WEEK_MS)).toBe(3);
    expect(renewalNeed([], [], NOW, WEEK_MS)).toBe(1);
  });

  it("a renewal the ledger shows accepted for that expiry needs nothing more; another expiry's does", () => {
    const expiry = new Date(NOW.getTime() + 86_400_000);
    const row = (outcome: LedgerRecord["outcome"], at: Date): LedgerRecord => ({
      id: 1,
      certificateName: "c",
      expiryAtRequest: at,
      firstRequestedAt: NOW,
      lastRequestedAt: NOW,
      outcome,
      attempts: 1,
      detail: undefined,
    });
    const inventory = [known("c", expiry)];
    expect(renewalNeed(inventory, [row("renewal-scheduled", expiry)], NOW, WEEK_MS)).toBe(1);
    expect(renewalNeed(inventory, [row("stuck", expiry)], NOW, WEEK_MS)).toBe(1);
    expect(renewalNeed(inventory, [row("failed", expiry)], NOW, WEEK_MS)).toBe(2);
    expect(renewalNeed(inventory, [row("answer-unknown", expiry)], NOW, WEEK_MS)).toBe(2);
    const older = new Date(expiry.getTime() - 1);
    expect(renewalNeed(inventory, [row("renewal-scheduled", older)], NOW, WEEK_MS)).toBe(2);
  });
});

describe("the storage's time of an insert", () => {
  it("is the Timestamp in the ETag, to the 100 ns the storage writes", () => {
    expect(
      insertedAt({ etag: `W/"datetime'2026-11-26T00%3A19%3A09.7416405Z'"`, date: new Date(0) }),
    ).toEqual(new Date("2026-11-26T00:19:09.741Z"));
  });

  it("else the Date header less a second (never a shorter window); else unknown", () => {
    const date = new Date("2026-11-26T00:19:09.000Z");
    expect(insertedAt({ etag: 'W/"1"', date })).toEqual(new Date("2026-11-26T00:19:08.000Z"));
    expect(insertedAt({ etag: `W/"datetime'not a time'"` })).toBeUndefined();
    expect(insertedAt({})).toBeUndefined();
  });
});

describe("the cause of a deferral", () => {
  const usage = (reads: number, others: number, thisRun: number): QuotaUsage => ({
    quota: { requests: 10, windowMs: WEEK_MS, text: "10/7d" },
    used: reads + others + thisRun,
    reads,
    others,
    thisRun,
  });

  it("more urgent renewals only when this run alone used the budget", () => {
    expect(deferralCause(usage(0, 0, 10))).toBe(TAKEN_BY_MORE_URGENT);
    expect(deferralCause(undefined)).toBe(TAKEN_BY_MORE_URGENT);
  });

  it("else who used it, by count", () => {
    expect(deferralCause(usage(6, 4, 0))).toBe(
      "the service's request budget is spent (CERTSCHED_SERVICE_QUOTA 10/7d: 6 used by reads and tests, 4 by other runs and processes (their lists and renewals), 0 by this run, 0 left)",
    );
    expect(deferralCause(usage(1, 0, 9))).not.toBe(TAKEN_BY_MORE_URGENT);
    expect(deferralCause(usage(0, 1, 9))).not.toBe(TAKEN_BY_MORE_URGENT);
  });
});
