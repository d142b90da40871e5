import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import type { LedgerOutcome, LedgerRecord } from "../../../../shared/core/ports/ledger.js";
import { PREFLIGHT_ADVICE } from "../../../../shared/core/preflight/advice.js";
import type { FailReason } from "../../../../shared/core/preflight/preflight.js";
import {
  ANSWER_WINDOW_MS,
  ASK_AGAIN,
  CLAIM_LEASE_MS,
  DAY_TOLERANCE_MS,
  decide,
  STUCK_AFTER_MS,
  type Verdict,
} from "../../../../shared/core/renewal/decide.js";

const H = 3_600_000;
const NOW = new Date("2026-03-01T03:00:00.000Z");
const EXPIRY = new Date("2026-03-06T00:00:00.000Z");
const GRACE = 2 * H;

const hoursAgo = (h: number) => new Date(NOW.getTime() - h * H);

/** A ledger record of the current episode: first and last request `h` hours ago. */
function record(
  first: number | undefined,
  last: number | undefined,
  outcome: LedgerOutcome = "renewal-scheduled",
  extra: Partial<LedgerRecord> = {},
): LedgerRecord {
  return {
    id: 7,
    certificateName: "www-contoso-com",
    expiryAtRequest: EXPIRY,
    firstRequestedAt: first === undefined ? undefined : hoursAgo(first),
    lastRequestedAt: last === undefined ? undefined : hoursAgo(last),
    outcome,
    attempts: 2,
    detail: undefined,
    ...extra,
  };
}

type Expected = Pick<Verdict, "action" | "reason"> & { renew?: boolean; askAgain?: string };

const CASES: [string, LedgerRecord | undefined, Expected][] = [
  ["no record: renew", undefined, { action: "renew", reason: "NewRenewal" }],
  [
    "a record of the previous certificate (expiry changed): renew",
    record(30, 30, "stuck", { expiryAtRequest: new Date("2025-12-06T00:00:00.000Z") }),
    { action: "renew", reason: "NewRenewal" },
  ],
  [
    "the first attempt failed (nothing accepted yet): renew",
    record(undefined, undefined, "failed"),
    { action: "renew", reason: "PreviousAttemptFailed" },
  ],
  [
    "the last attempt failed after an accepted one: renew",
    record(5, 0.5, "failed"),
    { action: "renew", reason: "PreviousAttemptFailed" },
  ],
  ["requested 1 h ago: skip", record(1, 1), { action: "skip", reason: "WithinGrace" }],
  [
    "sent moments ago, no answer recorded yet (another sweep is sending it): skip",
    record(0, 0, "sent"),
    { action: "skip", reason: "AnswerUnknown" },
  ],
  [
    "sent 59 min ago and no answer in time: skip, the service may have scheduled it",
    record(59 / 60, 59 / 60, "answer-unknown"),
    { action: "skip", reason: "AnswerUnknown" },
  ],
  [
    "sent 1 h ago, no answer, still listed with the same expiry: not renewed, ask again (grace or not)",
    record(1, 1, "answer-unknown"),
    { action: "renew", reason: "AnswerUnknownExpired" },
  ],
  [
    "left 'sent' by a crash 1.5 h ago, still listed with the same expiry: ask again",
    record(1.5, 1.5, "sent"),
    { action: "renew", reason: "AnswerUnknownExpired" },
  ],
  [
    "sent 3 h ago and no answer in time: ask again",
    record(3, 3, "answer-unknown"),
    { action: "renew", reason: "AnswerUnknownExpired" },
  ],
  [
    "left 'sent' an hour ago, but the list shows a new expiry: the renewal landed, a new episode",
    record(1, 1, "sent", { expiryAtRequest: new Date("2025-12-06T00:00:00.000Z") }),
    { action: "renew", reason: "NewRenewal" },
  ],
  [
    "claimed 30 s ago by another sweep: skip, it is about to send",
    record(undefined, undefined, "claimed", { claimedAt: new Date(NOW.getTime() - 30_000) }),
    { action: "skip", reason: "ClaimHeld" },
  ],
  [
    "claimed a lease ago, never sent (the sweep died): renew at once",
    record(undefined, undefined, "claimed", {
      claimedAt: new Date(NOW.getTime() - CLAIM_LEASE_MS),
    }),
    { action: "renew", reason: "UnsentClaimExpired" },
  ],
  [
    "claimed 5 min ago for a second request an hour after the first, never sent: renew at once",
    record(1, 1, "claimed", { claimedAt: hoursAgo(5 / 60) }),
    { action: "renew", reason: "UnsentClaimExpired" },
  ],
  [
    "stuck, the re-request claimed and abandoned: still stuck, asked again at once",
    record(30, 3, "claimed", { claimedAt: hoursAgo(1) }),
    { action: "stuck", reason: "Stuck", renew: true, askAgain: "UnsentClaimAbandoned" },
  ],
  [
    "stuck, but another sweep holds a fresh claim on it: skip, that sweep reports it",
    record(30, 25, "claimed", { claimedAt: new Date(NOW.getTime() - 1_000) }),
    { action: "skip", reason: "ClaimHeld" },
  ],
  [
    "a fresh claim of the previous certificate (expiry changed): renew",
    record(undefined, undefined, "claimed", {
      claimedAt: NOW,
      expiryAtRequest: new Date("2025-12-06T00:00:00.000Z"),
    }),
    { action: "renew", reason: "NewRenewal" },
  ],
  ["requested 3 h ago: renew", record(3, 3), { action: "renew", reason: "GraceElapsed" }],
  ["exactly the grace ago: renew", record(2, 2), { action: "renew", reason: "GraceElapsed" }],
  [
    "first 23 h ago, last 3 h ago: renew, not stuck yet",
    record(23, 3),
    { action: "renew", reason: "GraceElapsed" },
  ],
  [
    "first exactly 24 h ago, never since: stuck, ask again",
    record(24, 24),
    { action: "stuck", reason: "Stuck", renew: true, askAgain: "DailyRetry" },
  ],
  [
    "first 25 h ago, last 22 h ago (before it was stuck): stuck, ask again",
    record(25, 22),
    { action: "stuck", reason: "Stuck", renew: true, askAgain: "FirstFoundStuck" },
  ],
  [
    "first 24 h ago, last 1 h ago (within the grace): stuck, not again",
    record(24, 1),
    { action: "stuck", reason: "Stuck", renew: false, askAgain: undefined },
  ],
  [
    "first 26 h ago, last 1 h ago (asked again when stuck): stuck, not again",
    record(26, 1),
    { action: "stuck", reason: "Stuck", renew: false },
  ],
  [
    "first 48 h ago, last 23 h ago: stuck, not again",
    record(48, 23),
    { action: "stuck", reason: "Stuck", renew: false },
  ],
  [
    "first 49 h ago, last 24 h ago: stuck, ask again (once a day)",
    record(49, 24),
    { action: "stuck", reason: "Stuck", renew: true, askAgain: "DailyRetry" },
  ],
  [
    "stuck and the last re-request failed: still stuck, and asked again now",
    record(49, 3, "failed"),
    { action: "stuck", reason: "Stuck", renew: true, askAgain: "LastAttemptFailed" },
  ],
  [
    "failed, not yet a day: retry now",
    record(20, 3, "failed"),
    { action: "renew", reason: "PreviousAttemptFailed" },
  ],
  // Daily sweeps are not exactly 24 h apart: a day a few seconds short is still a day.
  [
    "first 23 h 59 m 59 s ago (daily sweep a second early): stuck, ask again",
    record(24 - 1 / 3600, 24 - 1 / 3600),
    { action: "stuck", reason: "Stuck", renew: true },
  ],
  [
    "first 47 h 59 m ago, last 23 h 59 m ago: stuck, ask again (once a day)",
    record(48 - 1 / 60, 24 - 1 / 60),
    { action: "stuck", reason: "Stuck", renew: true },
  ],
  ["first 23 h ago: not yet stuck", record(23, 23), { action: "renew", reason: "GraceElapsed" }],
];

describe("decide", () => {
  it.each(CASES)("%s", (_, rec, expected) => {
    const verdict = decide({ expiryDate: EXPIRY, record: rec, now: NOW, graceMs: GRACE });

    expect(verdict).toMatchObject(expected);
    expect(verdict.message).not.toBe("");
  });

  it("says how long ago, in minutes below an hour", () => {
    const verdict = decide({
      expiryDate: EXPIRY,
      record: record(0.5, 0.5),
      now: NOW,
      graceMs: GRACE,
    });
    expect(verdict.message).toBe(
      "renewal requested 30 min ago; the service completes within an hour",
    );
  });

  it("says how long and how many attempts when stuck", () => {
    const verdict = decide({
      expiryDate: EXPIRY,
      record: record(25, 22),
      now: NOW,
      graceMs: GRACE,
    });
    expect(verdict.message).toBe(
      "still due 25.0 h after renewal was first requested (2 attempt(s)); requesting again",
    );
  });

  it("with a grace of 0 asks again on every sweep until stuck", () => {
    const verdict = decide({ expiryDate: EXPIRY, record: record(1, 0), now: NOW, graceMs: 0 });
    expect(verdict).toMatchObject({ action: "renew", reason: "GraceElapsed" });
  });

  it("honours a longer grace (CERTSCHED_RENEWAL_GRACE=6h)", () => {
    const verdict = decide({ expiryDate: EXPIRY, record: record(5, 5), now: NOW, graceMs: 6 * H });
    expect(verdict).toMatchObject({ action: "skip", reason: "WithinGrace" });
  });

  const episode = fc
    .record({
      first: fc.integer({ min: 0, max: 96 * 60 }),
      lastOffset: fc.integer({ min: 0, max: 96 * 60 }),
      graceMinutes: fc.integer({ min: 0, max: 6 * 60 }),
    })
    .map(({ first, lastOffset, graceMinutes }) => ({
      // Minutes ago; the last request is never before the first.
      first,
      last: Math.max(0, first - lastOffset),
      graceMs: graceMinutes * 60_000,
    }));

  /** States in which a request was sent and may have been acted on. */
  const sentOutcome = fc.constantFrom<LedgerOutcome>(
    "renewal-scheduled",
    "sent",
    "answer-unknown",
    "stuck",
  );

  test.prop([episode, sentOutcome])(
    "never asks again within the grace of an answered request, nor within the hour of one whose answer is unknown; stuck after a day",
    ({ first, last, graceMs }, outcome) => {
      const rec = record(first / 60, last / 60, outcome);
      const verdict = decide({ expiryDate: EXPIRY, record: rec, now: NOW, graceMs });
      const asks = verdict.action === "renew" || (verdict.action === "stuck" && verdict.renew);
      const unknown = outcome === "sent" || outcome === "answer-unknown";
      // The stuck clauses keep the grace; an unknown answer not yet stuck waits the hour (the
      // grace when shorter).
      const wait =
        unknown && verdict.action !== "stuck" ? Math.min(graceMs, ANSWER_WINDOW_MS) : graceMs;
      if (asks) expect(last * 60_000).toBeGreaterThanOrEqual(wait);
      if (unknown && verdict.action !== "stuck") {
        expect(asks).toBe(last * 60_000 >= wait);
      }
      // The rule decide.ts keeps: stuck from a day less the tolerance for daily sweeps that
      // run a little early (23.5 h), not from exactly 24 h.
      expect(verdict.action === "stuck").toBe(first * 60_000 >= STUCK_AFTER_MS - DAY_TOLERANCE_MS);
    },
  );

  it.each([
    ["grace 2 h, exactly an hour: asked again", GRACE, H, "renew", "AnswerUnknownExpired"],
    ["grace 2 h, a millisecond short of the hour: wait", GRACE, H - 1, "skip", "AnswerUnknown"],
    ["grace 1 h, exactly an hour: asked again", H, H, "renew", "AnswerUnknownExpired"],
    ["grace 30 min, exactly 30 min: asked again", H / 2, H / 2, "renew", "AnswerUnknownExpired"],
    ["grace 30 min, a millisecond short: wait", H / 2, H / 2 - 1, "skip", "AnswerUnknown"],
  ])("answer-unknown boundary, %s", (_, graceMs, sinceLastMs, action, reason) => {
    for (const outcome of ["sent", "answer-unknown"] as const) {
      const rec = record(sinceLastMs / H, sinceLastMs / H, outcome);
      expect(decide({ expiryDate: EXPIRY, record: rec, now: NOW, graceMs }), outcome).toMatchObject(
        { action, reason },
      );
    }
  });

  it.each([
    ["the lease's last millisecond: held", 999, "skip", "ClaimHeld"],
    ["the lease over: renewed at once", 1_000, "renew", "UnsentClaimExpired"],
  ])("CERTSCHED_CLAIM_LEASE of 1 s, %s", (_, sinceClaimMs, action, reason) => {
    const rec = record(undefined, undefined, "claimed", {
      claimedAt: new Date(NOW.getTime() - sinceClaimMs),
    });
    expect(
      decide({ expiryDate: EXPIRY, record: rec, now: NOW, graceMs: GRACE, claimLeaseMs: 1_000 }),
    ).toMatchObject({ action, reason });
  });

  it.each([
    ["just inside the tolerance: stuck", STUCK_AFTER_MS - DAY_TOLERANCE_MS, true],
    ["a millisecond short of it: not yet", STUCK_AFTER_MS - DAY_TOLERANCE_MS - 1, false],
  ])("stuck boundary, %s", (_, sinceFirstMs, stuck) => {
    const rec = record(sinceFirstMs / H, sinceFirstMs / H);
    const verdict = decide({ expiryDate: EXPIRY, record: rec, now: NOW, graceMs: GRACE });
    expect(verdict.action === "stuck").toBe(stuck);
  });

  const failedEpisode = fc.record({
    first: fc.integer({ min: 0, max: 96 * 60 }),
    lastOffset: fc.integer({ min: 0, max: 96 * 60 }),
    graceMinutes: fc.integer({ min: 0, max: 6 * 60 }),
  });

  test.prop([failedEpisode])(
    "after a failed attempt always asks again (a failure ordered nothing)",
    ({ first, lastOffset, graceMinutes }) => {
      const last = Math.max(0, first - lastOffset);
      const rec = record(first / 60, last / 60, "failed");
      const verdict = decide({
        expiryDate: EXPIRY,
        record: rec,
        now: NOW,
        graceMs: graceMinutes * 60_000,
      });
      const asks = verdict.action === "renew" || (verdict.action === "stuck" && verdict.renew);
      expect(asks).toBe(true);
    },
  );

  const claimEpisode = fc.record({
    first: fc.option(fc.integer({ min: 0, max: 96 * 60 }), { nil: undefined }),
    lastOffset: fc.integer({ min: 0, max: 96 * 60 }),
    graceMinutes: fc.integer({ min: 0, max: 6 * 60 }),
    // Seconds since the claim: up to two leases, across the boundary.
    claimedSecondsAgo: fc.integer({ min: 0, max: (2 * CLAIM_LEASE_MS) / 1000 }),
  });

  test.prop([claimEpisode])(
    "a claim in its lease is left to its sweep; past it, the unsent claim is asked again at once",
    ({ first, lastOffset, graceMinutes, claimedSecondsAgo }) => {
      const last = first === undefined ? undefined : Math.max(0, first - lastOffset);
      const rec = record(
        first === undefined ? undefined : first / 60,
        last === undefined ? undefined : last / 60,
        "claimed",
        {
          claimedAt: new Date(NOW.getTime() - claimedSecondsAgo * 1000),
        },
      );
      const verdict = decide({
        expiryDate: EXPIRY,
        record: rec,
        now: NOW,
        graceMs: graceMinutes * 60_000,
      });
      if (claimedSecondsAgo * 1000 < CLAIM_LEASE_MS) {
        expect(verdict).toMatchObject({ action: "skip", reason: "ClaimHeld" });
      } else {
        const asks = verdict.action === "renew" || (verdict.action === "stuck" && verdict.renew);
        expect(asks).toBe(true);
      }
    },
  );

  it("names every clause that asks a stuck certificate again", () => {
    expect(ASK_AGAIN.map((c) => c.reason)).toEqual([
      "LastAttemptFailed",
      "UnsentClaimAbandoned",
      "DailyRetry",
      "FirstFoundStuck",
    ]);
  });
});

describe("decide with the last preflight", () => {
  const DAY = 24 * H;
  const preflight = (ageMs: number, reasons: readonly FailReason[], status = "will-fail") => ({
    at: new Date(NOW.getTime() - ageMs),
    status: status as "will-fail" | "ready" | "unknown",
    checks: reasons.map((reason) => ({
      check: "caa" as const,
      status: "fail" as const,
      reason,
      detail: "seeded",
    })),
  });
  const base = { expiryDate: EXPIRY, now: NOW, graceMs: GRACE };

  it("blocks a certificate it would renew, naming the reason and what to do", () => {
    expect(
      decide({ ...base, record: undefined, preflight: preflight(0, ["caa-forbids"]) }),
    ).toEqual({
      action: "blocked",
      reason: "PreflightBlocked",
      blockedBy: "caa-forbids",
      message: `blocked (preflight: caa-forbids): ${PREFLIGHT_ADVICE["caa-forbids"]}`,
    });
  });

  it("exactly a day old still blocks; a day and 1 ms no longer does", () => {
    const at = (ageMs: number) =>
      decide({ ...base, record: undefined, preflight: preflight(ageMs, ["app-missing"]) }).action;
    expect(at(DAY)).toBe("blocked");
    expect(at(DAY + 1)).toBe("renew");
  });

  it("names the first blocking reason in check order; a non-blocking reason alone never blocks", () => {
    const blockedBy = (reasons: FailReason[]) => {
      const v = decide({ ...base, record: undefined, preflight: preflight(0, reasons) });
      return v.action === "blocked" ? v.blockedBy : v.action;
    };
    expect(blockedBy(["dns-not-delegated"])).toBe("renew");
    expect(blockedBy(["http-challenge-unreachable", "role-missing"])).toBe("renew");
    expect(blockedBy(["dns-not-delegated", "hostname-not-bound"])).toBe("hostname-not-bound");
  });

  it("a skip stays a skip, and a stuck certificate not asked again stays stuck", () => {
    const p = preflight(0, ["caa-forbids"]);
    expect(decide({ ...base, record: record(1, 1), preflight: p }).action).toBe("skip");
    const stuck = decide({ ...base, record: record(25, 1), preflight: p });
    expect(stuck).toMatchObject({ action: "stuck", renew: false });
    // Asked again (a day since the last request): blocked instead, nothing is spent.
    expect(decide({ ...base, record: record(49, 25), preflight: p }).action).toBe("blocked");
  });

  it("forced, renews and says what it was forced past", () => {
    const v = decide({
      ...base,
      record: undefined,
      preflight: preflight(0, ["dns-zone-missing"]),
      force: true,
    });
    expect(v).toMatchObject({
      action: "renew",
      reason: "NewRenewal",
      forcedPast: "dns-zone-missing",
    });
    // Nothing to force past: no mark.
    expect(decide({ ...base, record: undefined, force: true })).not.toHaveProperty("forcedPast");
  });

  it("a ready or unknown result never blocks", () => {
    for (const status of ["ready", "unknown"]) {
      const p = preflight(0, ["caa-forbids"], status);
      expect(decide({ ...base, record: undefined, preflight: p }).action).toBe("renew");
    }
  });
});
