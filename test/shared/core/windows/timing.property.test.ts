import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nextOccurrence, parseSchedule } from "../../../../shared/core/schedule/ncrontab.js";
import {
  OPEN_CALENDAR,
  type RenewalCalendar,
  type WindowRule,
} from "../../../../shared/core/windows/calendar.js";
import { checkCalendar } from "../../../../shared/core/windows/checkCalendar.js";
import { AccountCalendar } from "../../../../shared/core/windows/timing.js";
import { propertyRuns } from "../../../support/fastCheck.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** The service lists a certificate as due this long before it expires. */
const LISTED = 20 * DAY;

const ZONES = [
  "UTC",
  "Europe/Berlin",
  "America/New_York",
  "Asia/Kolkata",
  "Australia/Lord_Howe",
  "America/Sao_Paulo",
  "Pacific/Chatham",
];
const TIMERS = ["0 0 * * * *", "0 0 */6 * * *", "0 0 3 * * *", "0 30 */2 * * *"];

const hourField = fc.oneof(
  fc.integer({ min: 0, max: 23 }).map(String),
  fc
    .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 23 }))
    .map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
);
const dowField = fc.oneof(
  fc.constant("*"),
  fc
    .uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 7 })
    .map((d) => d.sort().join(",")),
);
const domField = fc.oneof(
  fc.constant("*"),
  fc.constant("*"),
  fc.integer({ min: 1, max: 28 }).map(String),
);

const windowRule = (index: number) =>
  fc
    .record({
      minute: fc.constantFrom(0, 15, 30, 45),
      hour: hourField,
      dom: domField,
      dow: dowField,
      durationMs: fc.integer({ min: 15, max: 72 * 60 }).map((m) => m * MINUTE),
      timeZone: fc.constantFrom(...ZONES),
      limited: fc.boolean(),
    })
    .map(
      (w): WindowRule => ({
        label: `W[${index}]`,
        start: `${w.minute} ${w.hour} ${w.dom} * ${w.dow}`,
        durationMs: w.durationMs,
        timeZone: w.timeZone,
        ...(w.limited ? { certificates: ["api-*"] } : {}),
      }),
    );

/** A year of DST changes in every zone above. */
const BASE = Date.parse("2026-03-01T00:00:00Z");

const world = fc.record({
  windows: fc
    .integer({ min: 0, max: 3 })
    .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => windowRule(i)))),
  freezes: fc.array(
    fc.record({
      start: fc.integer({ min: 0, max: 400 * 24 }),
      hours: fc.integer({ min: 1, max: 40 * 24 }),
    }),
    { maxLength: 2 },
  ),
  marginMs: fc.integer({ min: 1, max: 10 * 24 }).map((h) => h * HOUR),
  jitterMs: fc.integer({ min: 0, max: 120 }).map((m) => m * MINUTE),
  timer: fc.constantFrom(...TIMERS),
  /** When the certificate expires, in minutes from BASE + the list window. */
  expiresIn: fc.integer({ min: 0, max: 365 * 24 * 60 }),
  name: fc.constantFrom("api-eu", "www"),
  account: fc.constantFrom("default", "contoso", "fabrikam-eu"),
});

describe("the guarantee, over random windows, freezes and expiries", () => {
  it("no certificate expires while due: each is renewed before its expiry, and outside its windows only at the last safe run", () => {
    fc.assert(
      fc.property(world, (w) => {
        const calendar: RenewalCalendar = {
          ...OPEN_CALENDAR,
          windows: w.windows,
          freezes: w.freezes.map((f, i) => ({
            label: `F[${i}]`,
            from: new Date(BASE + f.start * HOUR),
            to: new Date(BASE + (f.start + f.hours) * HOUR),
            reason: "random",
          })),
          marginMs: w.marginMs,
          jitterMs: w.jitterMs,
        };
        const parsed = parseSchedule(w.timer);
        if (!parsed.ok) throw new Error(parsed.problem);
        const nextTick = (after: Date) => nextOccurrence(parsed.schedule, after);
        const expiry = new Date(BASE + LISTED + w.expiresIn * MINUTE);
        const listedAt = new Date(expiry.getTime() - LISTED);
        // Only a declaration the settings would load.
        fc.pre(
          checkCalendar(calendar, { account: w.account, timer: parsed.schedule, now: listedAt })
            .problems.length === 0,
        );
        const c = new AccountCalendar(calendar, w.account);
        const first = nextTick(new Date(listedAt.getTime() - 1));
        let renewed: { at: Date; kind: string; mustRenewBy?: Date } | undefined;
        for (let t = first; t && t < expiry; t = nextTick(t)) {
          const timing = c.timing(w.name, { now: t, expiry, nextTick });
          if (timing.kind === "waiting") continue;
          renewed = {
            at: t,
            kind: timing.kind,
            ...(timing.kind === "outside" ? { mustRenewBy: timing.mustRenewBy } : {}),
          };
          break;
        }
        expect(renewed, "renewed before it expired").toBeDefined();
        if (!renewed || !first) return;
        const lastSafe = new Date(expiry.getTime() - w.marginMs);
        // Not later than the last safe run (unless the first run it was due at was already late).
        if (renewed.at.getTime() > first.getTime())
          expect(renewed.at.getTime()).toBeLessThanOrEqual(lastSafe.getTime());
        if (renewed.kind === "outside") {
          // And not earlier: the next run would have been too late.
          expect(nextTick(renewed.at)?.getTime() ?? Number.POSITIVE_INFINITY).toBeGreaterThan(
            renewed.mustRenewBy?.getTime() ?? 0,
          );
        }
      }),
      { numRuns: propertyRuns(60) },
    );
  });
});
