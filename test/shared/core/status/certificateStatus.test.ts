import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { daysLeft } from "../../../../shared/core/certificate/dates.js";
import type {
  InventoryRecord,
  VerificationRecord,
} from "../../../../shared/core/ports/inventory.js";
import {
  LEDGER_OUTCOMES,
  type LedgerOutcome,
  type LedgerRecord,
} from "../../../../shared/core/ports/ledger.js";
import { DAY_TOLERANCE_MS, STUCK_AFTER_MS } from "../../../../shared/core/renewal/decide.js";
import {
  type CertificateStatus,
  certificateStatus,
  STATUS_WORDS,
  type StatusInput,
  type StatusWord,
} from "../../../../shared/core/status/certificateStatus.js";
import { STATUSES } from "../../../../shared/core/verification/judge.js";
import { propertyRuns } from "../../../support/fastCheck.js";

/*
 * The overall word of the status view: each rule of the precedence (certificateStatus.ts
 * STATUS_WORDS), the order between neighbours, and each boundary on both sides.
 */

const H = 3_600_000;
const DAY = 24 * H;
const NOW = new Date("2026-03-01T03:00:00.000Z");
const OPTIONS = { now: NOW, graceMs: 2 * H, warnDays: 14 };
const at = (ms: number) => new Date(NOW.getTime() + ms);
/** The expiry of the certificate there now (and of the current renewal episode). */
const EXPIRY = at(5 * DAY + H);

function inventory(extra: Partial<InventoryRecord> = {}): InventoryRecord {
  return {
    certificateName: "www",
    id: 7,
    source: "due-list",
    target: "Cloud App Service",
    rootDomain: "contoso.com",
    serviceExpiry: EXPIRY,
    firstSeen: at(-30 * DAY),
    // The service's word is fresh unless a case says otherwise (stuck is judged as of it).
    lastSeen: NOW,
    ...extra,
  };
}

function verified(
  status: VerificationRecord["status"],
  /** null: nothing was read (a default parameter would turn undefined into EXPIRY). */
  servedNotAfter: Date | null = EXPIRY,
  extra: Partial<VerificationRecord> = {},
): Partial<InventoryRecord> {
  return {
    lastVerification: {
      at: at(-H),
      status,
      source: "tls",
      domain: "www.contoso.com",
      servedNotAfter: servedNotAfter ?? undefined,
      detail: `verified: ${status}`,
      ...extra,
    },
  };
}

/** A ledger row of the current episode: first and last request `first`/`last` ms before now. */
function ledger(
  outcome: LedgerOutcome,
  /** null: never sent (a default parameter would turn undefined into the default). */
  first: number | null = H / 2,
  last: number | null = first,
  extra: Partial<LedgerRecord> = {},
): LedgerRecord {
  return {
    id: 7,
    certificateName: "www",
    expiryAtRequest: EXPIRY,
    firstRequestedAt: first === null ? undefined : at(-first),
    lastRequestedAt: last === null ? undefined : at(-last),
    outcome,
    attempts: 1,
    detail: `detail of ${outcome}`,
    reason: "NewRenewal",
    ...(outcome === "claimed" ? { claimedAt: at(-10_000) } : {}),
    ...extra,
  };
}

type Case = [string, StatusInput, StatusWord];
const name = "www";

const CASES: Case[] = [
  // unknown / ok / expiring boundaries (served expiry unknown: the service's word counts)
  ["only a name", { certificateName: name }, "unknown"],
  [
    "inventory without any expiry",
    { certificateName: name, inventory: inventory({ serviceExpiry: undefined }) },
    "unknown",
  ],
  [
    "service: 14 days left exactly (not below warnDays)",
    { certificateName: name, inventory: inventory({ serviceExpiry: at(14 * DAY) }) },
    "ok",
  ],
  [
    "service: 1 ms short of 14 days (13 whole days)",
    { certificateName: name, inventory: inventory({ serviceExpiry: at(14 * DAY - 1) }) },
    "expiring",
  ],
  [
    "service: expires exactly now (notAfter itself is valid)",
    { certificateName: name, inventory: inventory({ serviceExpiry: NOW }) },
    "expiring",
  ],
  [
    "service: expired 1 ms ago",
    { certificateName: name, inventory: inventory({ serviceExpiry: at(-1) }) },
    "expired",
  ],
  // served wins over the service's word
  [
    "served expired although the service says 5 days",
    { certificateName: name, inventory: inventory(verified("ok", at(-1))) },
    "expired",
  ],
  [
    "served 60 days although the service says 5 days",
    { certificateName: name, inventory: inventory(verified("ok", at(60 * DAY))) },
    "ok",
  ],
  [
    "served 5 days, service 60 days",
    {
      certificateName: name,
      inventory: inventory({ serviceExpiry: at(60 * DAY), ...verified("ok", EXPIRY) }),
    },
    "expiring",
  ],
  // the ledger
  [
    "scheduled 30 min ago",
    { certificateName: name, inventory: inventory(), ledger: ledger("renewal-scheduled") },
    "pending",
  ],
  [
    "claimed",
    {
      certificateName: name,
      inventory: inventory(),
      ledger: ledger("claimed", null, null),
    },
    "pending",
  ],
  ["sent", { certificateName: name, inventory: inventory(), ledger: ledger("sent") }, "pending"],
  [
    "answer unknown",
    { certificateName: name, inventory: inventory(), ledger: ledger("answer-unknown") },
    "pending",
  ],
  [
    "failed",
    {
      certificateName: name,
      inventory: inventory(),
      ledger: ledger("failed", null, null),
    },
    "failed",
  ],
  [
    "stuck outcome",
    { certificateName: name, inventory: inventory(), ledger: ledger("stuck", 30 * H, H) },
    "stuck",
  ],
  [
    "scheduled exactly the stuck threshold ago, same expiry (stuck as the sweep sees it)",
    {
      certificateName: name,
      inventory: inventory(),
      ledger: ledger("renewal-scheduled", STUCK_AFTER_MS - DAY_TOLERANCE_MS),
    },
    "stuck",
  ],
  [
    "scheduled 1 ms short of the stuck threshold",
    {
      certificateName: name,
      inventory: inventory(),
      ledger: ledger("renewal-scheduled", STUCK_AFTER_MS - DAY_TOLERANCE_MS - 1),
    },
    "pending",
  ],
  [
    "scheduled 2 days ago, no service expiry known: not called stuck on the ledger alone",
    {
      certificateName: name,
      inventory: inventory({ serviceExpiry: undefined }),
      ledger: ledger("renewal-scheduled", 2 * DAY),
    },
    "pending",
  ],
  [
    "scheduled 2 days ago; the service's last word came exactly the stuck threshold after it",
    {
      certificateName: name,
      inventory: inventory({ lastSeen: at(-2 * DAY + STUCK_AFTER_MS - DAY_TOLERANCE_MS) }),
      ledger: ledger("renewal-scheduled", 2 * DAY),
    },
    "stuck",
  ],
  [
    "scheduled 2 days ago; the service's last word came 1 ms short of that (it left the due list)",
    {
      certificateName: name,
      inventory: inventory({ lastSeen: at(-2 * DAY + STUCK_AFTER_MS - DAY_TOLERANCE_MS - 1) }),
      ledger: ledger("renewal-scheduled", 2 * DAY),
    },
    "pending",
  ],
  [
    "a word from the future (a clock ahead) is judged as of now",
    {
      certificateName: name,
      inventory: inventory({ lastSeen: at(10 * DAY) }),
      ledger: ledger("renewal-scheduled", STUCK_AFTER_MS - DAY_TOLERANCE_MS - 1),
    },
    "pending",
  ],
  [
    "failed 2 days after the first request: stuck outranks failed",
    { certificateName: name, inventory: inventory(), ledger: ledger("failed", 2 * DAY, H) },
    "stuck",
  ],
  // a row of an earlier episode decides nothing
  [
    "failed row of an earlier certificate (the service reports a new expiry)",
    {
      certificateName: name,
      inventory: inventory({ serviceExpiry: at(90 * DAY) }),
      ledger: ledger("failed"),
    },
    "ok",
  ],
  [
    "stuck row, but the served certificate expires later than the row's",
    {
      certificateName: name,
      inventory: inventory({ serviceExpiry: undefined, ...verified("ok", at(90 * DAY)) }),
      ledger: ledger("stuck", 30 * H, H),
    },
    "ok",
  ],
  [
    "served exactly the row's expiry: still the same episode",
    {
      certificateName: name,
      inventory: inventory({ serviceExpiry: undefined, ...verified("ok", EXPIRY) }),
      ledger: ledger("failed"),
    },
    "failed",
  ],
  // verification words
  [
    "verification untrusted",
    { certificateName: name, inventory: inventory(verified("untrusted", at(60 * DAY))) },
    "failed",
  ],
  [
    "verification mismatch",
    { certificateName: name, inventory: inventory(verified("mismatch", at(60 * DAY))) },
    "failed",
  ],
  [
    "verification not-landed",
    { certificateName: name, inventory: inventory(verified("not-landed")) },
    "not-landed",
  ],
  [
    "verification not-synced",
    { certificateName: name, inventory: inventory(verified("not-synced")) },
    "not-synced",
  ],
  [
    "verification pending",
    { certificateName: name, inventory: inventory(verified("pending")) },
    "pending",
  ],
  [
    "verification unverifiable, 60 days",
    {
      certificateName: name,
      inventory: inventory({ serviceExpiry: at(60 * DAY), ...verified("unverifiable", null) }),
    },
    "unverifiable",
  ],
  [
    "verification unreachable, 60 days",
    {
      certificateName: name,
      inventory: inventory({ serviceExpiry: at(60 * DAY), ...verified("unreachable", null) }),
    },
    "unverifiable",
  ],
  [
    "unverifiable with nothing else known",
    {
      certificateName: name,
      inventory: inventory({ serviceExpiry: undefined, ...verified("unverifiable", null) }),
    },
    "unverifiable",
  ],
  // neighbours in the precedence
  [
    "expired outranks stuck",
    {
      certificateName: name,
      inventory: inventory({ serviceExpiry: undefined, ...verified("expired", at(-1)) }),
      ledger: ledger("stuck", 30 * H, H),
    },
    "expired",
  ],
  [
    "failed (ledger) outranks not-landed",
    {
      certificateName: name,
      inventory: inventory(verified("not-landed")),
      ledger: ledger("failed"),
    },
    "failed",
  ],
  [
    "not-landed outranks a scheduled row",
    {
      certificateName: name,
      inventory: inventory(verified("not-landed")),
      ledger: ledger("renewal-scheduled"),
    },
    "not-landed",
  ],
  [
    "pending outranks expiring (5 days left, renewal in flight)",
    { certificateName: name, inventory: inventory(), ledger: ledger("renewal-scheduled") },
    "pending",
  ],
  [
    "expiring outranks unverifiable",
    { certificateName: name, inventory: inventory(verified("unverifiable", null)) },
    "expiring",
  ],
];

describe("certificateStatus: the overall word", () => {
  it.each(CASES)("%s", (_, input, expected) => {
    expect(certificateStatus(input, OPTIONS).status).toBe(expected);
  });

  it("every word is reached by some case", () => {
    const reached = new Set(CASES.map(([, input]) => certificateStatus(input, OPTIONS).status));
    expect([...reached].sort()).toEqual([...STATUS_WORDS].sort());
  });

  it("warnDays is the setting's: 20 makes 15 days left expiring", () => {
    const input = { certificateName: name, inventory: inventory({ serviceExpiry: at(15 * DAY) }) };
    expect(certificateStatus(input, OPTIONS).status).toBe("ok");
    expect(certificateStatus(input, { ...OPTIONS, warnDays: 20 }).status).toBe("expiring");
  });
});

describe("certificateStatus: critical", () => {
  const critical = (ms: number) =>
    certificateStatus(
      { certificateName: name, inventory: inventory({ serviceExpiry: at(ms) }) },
      OPTIONS,
    ).critical;

  it("is true below 7 whole days, false at exactly 7", () => {
    expect(critical(7 * DAY)).toBe(false);
    expect(critical(7 * DAY - 1)).toBe(true);
  });

  it("is true for expired, false for ok", () => {
    expect(critical(-1)).toBe(true);
    expect(critical(60 * DAY)).toBe(false);
  });
});

describe("certificateStatus: the view", () => {
  it("shows both expiries, the ledger row, the verification and the inventory", () => {
    const served = at(4 * DAY);
    const view: CertificateStatus = certificateStatus(
      {
        certificateName: name,
        inventory: inventory({
          ...verified("pending", served, { critical: true }),
          keyVaultName: "kv",
        }),
        ledger: ledger("answer-unknown", 3 * H, H, {
          attempts: 2,
          detail: "no answer within 120 s",
        }),
      },
      OPTIONS,
    );

    expect(view).toEqual({
      certificateName: name,
      id: 7,
      status: "pending",
      label: "pending",
      why: `renewal sent at ${at(-H).toISOString()} without an answer in time: it may be scheduled (check with certsched get)`,
      critical: false,
      expiry: {
        service: EXPIRY.toISOString(),
        serviceDaysLeft: 5,
        served: served.toISOString(),
        servedDaysLeft: 4,
      },
      ledger: {
        outcome: "answer-unknown",
        reason: "NewRenewal",
        attempts: 2,
        firstRequestedAt: at(-3 * H).toISOString(),
        lastRequestedAt: at(-H).toISOString(),
        detail: "no answer within 120 s",
        current: true,
        stuck: false,
      },
      verification: {
        at: at(-H).toISOString(),
        status: "pending",
        critical: true,
        source: "tls",
        domain: "www.contoso.com",
        servedNotAfter: served.toISOString(),
        daysLeft: null,
        detail: "verified: pending",
      },
      inventory: {
        source: "due-list",
        target: "Cloud App Service",
        renewal: null,
        rootDomain: "contoso.com",
        keyVaultName: "kv",
        keyVaultCertificateName: null,
        firstSeen: at(-30 * DAY).toISOString(),
        lastSeen: NOW.toISOString(),
      },
      preflight: null,
      ari: null,
    });
  });

  it("names the cause of a failure in `why`", () => {
    const view = certificateStatus(
      {
        certificateName: name,
        inventory: inventory(),
        ledger: ledger("failed", null, null, {
          attempts: 3,
          detail: "DNS zone not found",
        }),
      },
      OPTIONS,
    );
    expect(view.why).toBe("the last renewal request failed (3 attempts): DNS zone not found");
    expect(view.ledger?.current).toBe(true);
  });

  it("a name known only to the ledger takes the ledger's id", () => {
    const view = certificateStatus(
      { certificateName: name, ledger: ledger("failed", null, null, { id: 42 }) },
      OPTIONS,
    );
    expect(view).toMatchObject({ id: 42, status: "failed", inventory: null, verification: null });
    expect(view.expiry).toEqual({
      service: null,
      serviceDaysLeft: null,
      served: null,
      servedDaysLeft: null,
    });
  });
});

describe("certificateStatus: properties over any input", () => {
  /** An instant within 100 days of now, to the millisecond (boundaries included). */
  const instant = fc
    .oneof(fc.integer({ min: -100 * DAY, max: 100 * DAY }), fc.constantFrom(-1, 0, 1))
    .map(at);
  const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
  const input = fc
    .record({
      serviceExpiry: maybe(instant),
      verification: maybe(
        fc.record({
          status: fc.constantFrom(...STATUSES, "unverifiable" as const),
          servedNotAfter: maybe(instant),
        }),
      ),
      inInventory: fc.boolean(),
      ledger: maybe(
        fc.record({
          outcome: fc.constantFrom(...LEDGER_OUTCOMES),
          sameExpiry: fc.boolean(),
          expiryAtRequest: instant,
          first: maybe(fc.integer({ min: 0, max: 5 * DAY })),
          attempts: fc.integer({ min: 0, max: 9 }),
        }),
      ),
    })
    .map(
      ({ serviceExpiry, verification, inInventory, ledger: l }): StatusInput => ({
        certificateName: name,
        ...(inInventory || verification
          ? {
              inventory: inventory({
                serviceExpiry,
                ...(verification
                  ? verified(verification.status, verification.servedNotAfter ?? null)
                  : {}),
              }),
            }
          : {}),
        ...(l
          ? {
              ledger: ledger(l.outcome, l.first ?? null, l.first ?? null, {
                attempts: l.attempts,
                expiryAtRequest: l.sameExpiry && serviceExpiry ? serviceExpiry : l.expiryAtRequest,
              }),
            }
          : {}),
      }),
    );

  it("one word of the list; expired exactly when the expiry users see has passed; ok only with warnDays left", () => {
    fc.assert(
      fc.property(input, fc.integer({ min: 1, max: 365 }), (i, warnDays) => {
        const view = certificateStatus(i, { ...OPTIONS, warnDays });
        const served = i.inventory?.lastVerification?.servedNotAfter;
        const effective = served ?? i.inventory?.serviceExpiry;
        expect(STATUS_WORDS).toContain(view.status);
        expect(view.status === "expired").toBe(
          effective !== undefined && NOW.getTime() > effective.getTime(),
        );
        if (view.status === "ok") {
          expect(effective).toBeDefined();
          expect(daysLeft(effective ?? NOW, NOW)).toBeGreaterThanOrEqual(warnDays);
        }
        if (view.status === "unknown") {
          expect(effective).toBeUndefined();
          // No verification that has a word of its own (an `ok` with no date read says nothing).
          expect([
            "untrusted",
            "mismatch",
            "not-landed",
            "pending",
            "unverifiable",
            "unreachable",
          ]).not.toContain(view.verification?.status);
        }
        if (view.ledger?.stuck) expect(["expired", "stuck"]).toContain(view.status);
        if (view.critical) expect(["expired", "expiring"]).toContain(view.status);
        if (view.ledger && !view.ledger.current) expect(view.ledger.stuck).toBe(false);
        // What is shown is what came in.
        expect(view.expiry.served).toBe(served?.toISOString() ?? null);
        expect(view.expiry.service).toBe(i.inventory?.serviceExpiry?.toISOString() ?? null);
      }),
      { numRuns: propertyRuns(500) },
    );
  });
});
