import { describe, expect, it } from "vitest";
import { KEY_VAULT } from "../../../../shared/core/certificate/fields.js";
import type { InventoryRecord, PreflightRecord } from "../../../../shared/core/ports/inventory.js";
import type { LedgerRecord } from "../../../../shared/core/ports/ledger.js";
import {
  type ExpiryInput,
  judgeExpiry,
} from "../../../../shared/core/vaultEvents/expiryVerdict.js";
import type { WatchedCertificate } from "../../../../shared/core/vaultEvents/watchedVaults.js";
import {
  SAMPLE_EXPIRY,
  SAMPLE_SUBSCRIPTION,
  SAMPLE_VERSION,
  sampleEvent,
  vaultVersion,
} from "../../../support/vaultEvents.js";

/**
 * The expiry verdict (expiryVerdict.ts), rule by rule in its order: each case below is the
 * first rule that applies, and its neighbour shows the boundary.
 */

const DAY = 86_400_000;
const HOUR = 3_600_000;
const EXPIRY = SAMPLE_EXPIRY;
/** Twenty days before the sample's expiry. */
const NOW = new Date(EXPIRY.getTime() - 20 * DAY);
const NEWER = "a1b2c3d4e5f60718293a4b5c6d7e8f90";

const record: InventoryRecord = {
  certificateName: "www",
  source: "due-list",
  firstSeen: NOW,
  lastSeen: NOW,
  target: KEY_VAULT,
  keyVaultName: "kv-contoso",
  keyVaultCertificateName: "www-contoso-example",
};

const certificate = (managed?: InventoryRecord): WatchedCertificate => ({
  keyVaultName: "kv-contoso",
  nameInVault: "www-contoso-example",
  names: ["www"],
  managed,
});

const ledger = (fields: Partial<LedgerRecord>): LedgerRecord => ({
  id: 7,
  certificateName: "www",
  expiryAtRequest: EXPIRY,
  firstRequestedAt: new Date(NOW.getTime() - 2 * DAY),
  lastRequestedAt: new Date(NOW.getTime() - HOUR),
  outcome: "renewal-scheduled",
  attempts: 1,
  detail: undefined,
  ...fields,
});

const version = vaultVersion();
const base: ExpiryInput = {
  event: sampleEvent({ kind: "near-expiry" }),
  version,
  current: version,
  certificate: certificate(record),
  now: NOW,
  verifyWindowMs: 48 * HOUR,
};

const judge = (fields: Partial<ExpiryInput>) => judgeExpiry({ ...base, ...fields });

describe("judgeExpiry", () => {
  it("1 renewed: the current version is another, expires later and is not expired", () => {
    const later = vaultVersion({ version: NEWER, notAfter: new Date(EXPIRY.getTime() + 60 * DAY) });
    expect(judge({ current: later, certificate: undefined })).toEqual({
      kind: "renewed",
      detail: `the vault's current version ${NEWER} expires 2027-04-29T10:00:00Z: renewed already`,
    });
    // Not later, or already expired itself: not renewed.
    const same = vaultVersion({ version: NEWER, notAfter: EXPIRY });
    expect(judge({ current: same }).kind).toBe("in-hand");
    const stale = vaultVersion({ version: NEWER, notAfter: new Date(EXPIRY.getTime() + DAY) });
    expect(judge({ current: stale, now: new Date(EXPIRY.getTime() + DAY) }).kind).not.toBe(
      "renewed",
    );
  });

  it("2 unmanaged: where it lives and the days left, or when it expired", () => {
    expect(judge({ certificate: certificate() })).toEqual({
      kind: "unmanaged",
      detail: `unmanaged certificate expiring: kv-contoso/www-contoso-example in subscription ${SAMPLE_SUBSCRIPTION}, resource group rg-certs, version ${SAMPLE_VERSION} expires at 2027-02-28T10:00:00Z (20 days)`,
    });
    expect(judge({ certificate: undefined, now: new Date(EXPIRY.getTime() - DAY) }).detail).toMatch(
      /\(1 day\)$/,
    );
    const expired = judge({
      certificate: undefined,
      now: EXPIRY,
      event: sampleEvent({ kind: "expired" }),
    });
    expect(expired).toEqual({
      kind: "unmanaged",
      detail: `unmanaged certificate expiring: kv-contoso/www-contoso-example in subscription ${SAMPLE_SUBSCRIPTION}, resource group rg-certs, version ${SAMPLE_VERSION} expired at 2027-02-28T10:00:00Z`,
    });
  });

  it("3 at-risk: an expired event for a managed certificate with no later version", () => {
    expect(judge({ event: sampleEvent({ kind: "expired" }), ledger: ledger({}) })).toEqual({
      kind: "at-risk",
      detail: "expired at 2027-02-28T10:00:00Z and the vault holds no later version",
    });
  });

  it("4 at-risk: the last renewal request failed, or the renewal is stuck", () => {
    const failed = ledger({ outcome: "failed", detail: "the service answered 500\nforged" });
    expect(judge({ ledger: failed })).toEqual({
      kind: "at-risk",
      detail: `its last renewal request failed at ${new Date(NOW.getTime() - HOUR).toISOString().replace(".000Z", "Z")}: the service answered 500\\u{0a}forged`,
    });
    expect(judge({ ledger: ledger({ outcome: "stuck" }) })).toMatchObject({
      kind: "at-risk",
      detail: expect.stringMatching(
        /^its renewal is stuck: still due a day after the first request/,
      ),
    });
  });

  it("5 in-hand within the verify window of the last request; at-risk at exactly the window", () => {
    for (const outcome of ["renewal-scheduled", "answer-unknown", "sent"] as const) {
      const sent = ledger({ outcome, lastRequestedAt: new Date(NOW.getTime() - 48 * HOUR + 1) });
      expect(judge({ ledger: sent })).toEqual({
        kind: "in-hand",
        detail: `renewal requested at ${new Date(NOW.getTime() - 48 * HOUR + 1).toISOString()}, waiting for it to land`,
      });
      const late = ledger({ outcome, lastRequestedAt: new Date(NOW.getTime() - 48 * HOUR) });
      expect(judge({ ledger: late })).toEqual({
        kind: "at-risk",
        detail:
          "renewal requested at 2027-02-06T10:00:00Z has not landed after 48 h (CERTSCHED_VERIFY_WINDOW)",
      });
    }
    // Claimed but never sent: not a renewal on its way.
    expect(judge({ ledger: ledger({ outcome: "claimed" }) }).detail).toMatch(
      /^certsched renews it/,
    );
  });

  it("a ledger record of an earlier episode (an older expiry) says nothing about this one", () => {
    const earlier = ledger({
      outcome: "failed",
      expiryAtRequest: new Date(EXPIRY.getTime() - 90 * DAY),
    });
    expect(judge({ ledger: earlier }).kind).toBe("in-hand");
    const withinADay = ledger({
      outcome: "failed",
      expiryAtRequest: new Date(EXPIRY.getTime() - DAY),
    });
    expect(judge({ ledger: withinADay }).kind).toBe("at-risk");
  });

  it("6 at-risk: the last preflight says the renewal will fail, with its reasons", () => {
    const preflight: PreflightRecord = {
      rootDomain: "www.contoso.example",
      status: "will-fail",
      at: new Date("2027-02-01T00:00:00Z"),
      checks: [
        { check: "caa", status: "pass", detail: "ok" },
        {
          check: "dns-zone",
          status: "fail",
          reason: "dns-zone-missing",
          detail: "no zone contoso.example",
        },
      ],
    };
    const will = certificate({ ...record, lastPreflight: preflight });
    expect(judge({ certificate: will })).toEqual({
      kind: "at-risk",
      detail:
        "preflight (2027-02-01T00:00:00Z) says its renewal will fail: dns-zone-missing: no zone contoso.example",
    });
    const ready = certificate({
      ...record,
      lastPreflight: { ...preflight, status: "ready", checks: [] },
    });
    expect(judge({ certificate: ready }).kind).toBe("in-hand");
  });

  it("7 in-hand: nothing failed, the daily sweep renews it when due", () => {
    expect(judge({})).toEqual({
      kind: "in-hand",
      detail: "certsched renews it when the service lists it due (the daily sweep); nothing failed",
    });
  });

  it("every detail is escaped and bounded", () => {
    const long = ledger({ outcome: "failed", detail: `\u001b[2J${"x".repeat(2_000)}` });
    const { detail } = judge({ ledger: long });
    expect(detail.length).toBeLessThanOrEqual(500);
    expect(detail).toContain("\\u{1b}[2J");
  });
});
