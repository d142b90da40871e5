import { describe, expect, it } from "vitest";
import type { CertificateEvent } from "../../../../shared/core/history/events.js";
import {
  receiptSentence,
  receiptView,
  renewalReceipts,
} from "../../../../shared/core/history/receipts.js";

const at = (minute: number) => new Date(Date.UTC(2026, 10, 26, 10, minute));
const OLD = { thumbprint: "AB12CD34".repeat(8), notAfter: new Date("2026-12-01T00:00:00.000Z") };
const NEW = { thumbprint: "EF34AB56".repeat(8), notAfter: new Date("2027-03-01T00:00:00.000Z") };

const event = (
  kind: CertificateEvent["event"],
  minute: number,
  more: Partial<CertificateEvent> = {},
): CertificateEvent => ({
  at: at(minute),
  certificateName: "shop",
  event: kind,
  trigger: "timer",
  runId: "r",
  ...more,
});

describe("renewalReceipts", () => {
  it("pairs each renewal with the landing after it, newest first, from events in any order", () => {
    const events = [
      event("landed", 30, { before: OLD, after: NEW }),
      event("verified", 20),
      event("renewal-scheduled", 40, { before: NEW }),
      event("renewal-scheduled", 10, { before: OLD }),
    ];
    const receipts = renewalReceipts(events);
    expect(receipts).toEqual([
      { certificateName: "shop", acceptedAt: at(40), before: NEW },
      { certificateName: "shop", acceptedAt: at(10), before: OLD, after: NEW, changedAt: at(30) },
    ]);
    expect(receipts.map(receiptSentence)).toEqual([
      "served certificate has not changed since the renewal was accepted at 2026-11-26T10:40:00Z (still EF34AB56EF34AB56…, expires 2027-03-01T00:00:00Z)",
      "served certificate changed from AB12CD34AB12CD34… (expires 2026-12-01T00:00:00Z) to EF34AB56EF34AB56… (expires 2027-03-01T00:00:00Z) at 2026-11-26T10:30:00Z",
    ]);
  });

  it("a renewal with no `before`: not known; a landing whose renewal is older than the events read stands alone", () => {
    const receipts = renewalReceipts([
      event("renewal-scheduled", 10),
      event("landed", 5, { before: OLD, after: NEW }),
    ]);
    expect(receipts.map(receiptSentence)).toEqual([
      "served certificate before the renewal not known",
      "served certificate changed from AB12CD34AB12CD34… (expires 2026-12-01T00:00:00Z) to EF34AB56EF34AB56… (expires 2027-03-01T00:00:00Z) at 2026-11-26T10:05:00Z",
    ]);
    expect(receiptView(receipts[1] as (typeof receipts)[number])).toEqual({
      before: OLD,
      after: NEW,
      changedAt: "2026-11-26T10:05:00.000Z",
      text: expect.stringContaining("changed from"),
    });
    expect(renewalReceipts([event("verified", 1), event("failed", 2)])).toEqual([]);
  });

  it("keeps certificates apart", () => {
    const receipts = renewalReceipts([
      event("renewal-scheduled", 10, { before: OLD }),
      event("renewal-scheduled", 11, { certificateName: "www", before: OLD }),
      event("landed", 12, { certificateName: "www", before: OLD, after: NEW }),
    ]);
    expect(receipts.map((r) => [r.certificateName, r.changedAt !== undefined])).toEqual([
      ["www", true],
      ["shop", false],
    ]);
  });
});
