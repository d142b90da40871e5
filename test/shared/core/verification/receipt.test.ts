import { describe, expect, it } from "vitest";
import type { VerificationRecord } from "../../../../shared/core/ports/inventory.js";
import {
  closeReceipt,
  judgedRenewal,
  openReceipt,
} from "../../../../shared/core/verification/receipt.js";

const ACCEPTED = new Date("2026-11-26T09:00:00.000Z");
const OLD = "AA".repeat(32);
const NEW = "BB".repeat(32);
const renewal = { acceptedAt: ACCEPTED, expiryAtRequest: new Date("2026-12-01T00:00:00.000Z") };

const reading = (at: Date, more: Partial<VerificationRecord> = {}): VerificationRecord => ({
  at,
  status: "ok",
  source: "tls",
  domain: "shop.contoso.com",
  detail: "fine",
  thumbprint: OLD,
  servedNotAfter: renewal.expiryAtRequest,
  ...more,
});

describe("openReceipt", () => {
  it("the last reading at or before the acceptance is `before`; one after it is not", () => {
    expect(openReceipt(reading(ACCEPTED), renewal)).toEqual({
      acceptedAt: ACCEPTED,
      before: { thumbprint: OLD, notAfter: renewal.expiryAtRequest },
    });
    expect(openReceipt(reading(new Date(ACCEPTED.getTime() + 1)), renewal)).toEqual({
      acceptedAt: ACCEPTED,
    });
    expect(openReceipt(undefined, renewal)).toEqual({ acceptedAt: ACCEPTED });
  });

  it("keeps the stored receipt of the same acceptance; a new acceptance starts a new one", () => {
    const stored = { acceptedAt: ACCEPTED, before: { thumbprint: "CC" } };
    const later = reading(new Date(ACCEPTED.getTime() + 60_000), { receipt: stored });
    expect(openReceipt(later, renewal)).toBe(stored);
    const next = { ...renewal, acceptedAt: new Date(ACCEPTED.getTime() + 120_000) };
    expect(openReceipt(later, next)).toEqual({
      acceptedAt: next.acceptedAt,
      before: { thumbprint: OLD, notAfter: renewal.expiryAtRequest },
    });
    expect(openReceipt(later, undefined)).toBe(stored);
  });

  it("judgedRenewal adds the fingerprint from before, when known", () => {
    expect(judgedRenewal(renewal, { acceptedAt: ACCEPTED, before: { thumbprint: OLD } })).toEqual({
      ...renewal,
      beforeThumbprint: OLD,
    });
    expect(judgedRenewal(renewal, { acceptedAt: ACCEPTED })).toBe(renewal);
  });
});

describe("closeReceipt", () => {
  const open = { acceptedAt: ACCEPTED, before: { thumbprint: OLD } };
  const at = new Date(ACCEPTED.getTime() + 3_600_000);

  it("lands once, on the first reading of another certificate", () => {
    const first = closeReceipt(open, reading(at, { thumbprint: NEW }));
    expect(first.landing).toEqual({
      before: open.before,
      after: { thumbprint: NEW, notAfter: renewal.expiryAtRequest },
      at,
    });
    expect(first.receipt).toMatchObject({ landedAt: at, after: { thumbprint: NEW } });
    const again = closeReceipt(
      first.receipt,
      reading(new Date(at.getTime() + 1), { thumbprint: "DD" }),
    );
    expect(again.landing).toBeUndefined();
    expect(again.receipt).toBe(first.receipt);
  });

  it("no landing: the same certificate, a mismatch, nothing read, or no `before`", () => {
    expect(closeReceipt(open, reading(at)).landing).toBeUndefined();
    expect(
      closeReceipt(open, reading(at, { thumbprint: NEW, status: "mismatch" })).landing,
    ).toBeUndefined();
    expect(
      closeReceipt(open, reading(at, { thumbprint: undefined, status: "unreachable" })).landing,
    ).toBeUndefined();
    expect(
      closeReceipt({ acceptedAt: ACCEPTED }, reading(at, { thumbprint: NEW })).landing,
    ).toBeUndefined();
    expect(closeReceipt(undefined, reading(at, { thumbprint: NEW }))).toEqual({
      receipt: undefined,
    });
  });
});
