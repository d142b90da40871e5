import { describe, expect, it } from "vitest";
import { nextOccurrence, parseSchedule } from "../../../../shared/core/schedule/ncrontab.js";
import {
  type Freeze,
  OPEN_CALENDAR,
  type RenewalCalendar,
  type Timing,
  type WindowRule,
} from "../../../../shared/core/windows/calendar.js";
import { AccountCalendar } from "../../../../shared/core/windows/timing.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Tuesday to Thursday, 09:00-16:00 Berlin time. */
const OFFICE: WindowRule = {
  label: "CERTSCHED_RENEWAL_WINDOWS[0]",
  start: "0 9 * * 2-4",
  durationMs: 7 * HOUR,
  timeZone: "Europe/Berlin",
};

function calendar(part: Partial<RenewalCalendar>): RenewalCalendar {
  return { ...OPEN_CALENDAR, jitterMs: 0, ...part };
}

function ticks(ncrontab: string): (after: Date) => Date | undefined {
  const parsed = parseSchedule(ncrontab);
  if (!parsed.ok) throw new Error(parsed.problem);
  return (after) => nextOccurrence(parsed.schedule, after);
}

const far = new Date("2027-06-01T00:00:00Z");
const at = (iso: string) => new Date(iso);

describe("AccountCalendar.timing", () => {
  it("nothing declared: unrestricted", () => {
    const t = new AccountCalendar(OPEN_CALENDAR, "default").timing("api", {
      now: at("2026-12-04T10:00:00Z"),
      expiry: far,
    });
    expect(t).toEqual({ kind: "unrestricted" });
  });

  it("inside a window: open until it closes; outside: waiting for the next opening, in its zone", () => {
    const c = new AccountCalendar(calendar({ windows: [OFFICE] }), "default");
    // Wednesday 2026-12-02 11:00 Berlin.
    const open = c.timing("api", { now: at("2026-12-02T10:00:00Z"), expiry: far });
    expect(open.kind).toBe("open");
    expect(open.kind === "open" && open.opening.closesAt.toISOString()).toBe(
      "2026-12-02T15:00:00.000Z",
    );
    // Wednesday 16:00 Berlin is closed: the end is not in the window.
    const closing = c.timing("api", { now: at("2026-12-02T15:00:00Z"), expiry: far });
    expect(closing.kind).toBe("waiting");
    // Tuesday 08:59:59 Berlin: not yet; 09:00:00: open.
    expect(c.timing("api", { now: at("2026-12-08T07:59:59Z"), expiry: far }).kind).toBe("waiting");
    expect(c.timing("api", { now: at("2026-12-08T08:00:00Z"), expiry: far }).kind).toBe("open");
    const friday = c.timing("api", { now: at("2026-12-04T10:00:00Z"), expiry: far });
    expect(friday).toMatchObject({
      kind: "waiting",
      next: {
        window: "CERTSCHED_RENEWAL_WINDOWS[0]",
        opensAt: at("2026-12-08T08:00:00Z"),
        closesAt: at("2026-12-08T15:00:00Z"),
        opensAtLocal: "2026-12-08 09:00 Europe/Berlin",
      },
    });
  });

  it("a window limited to some certificates leaves the others unrestricted", () => {
    const c = new AccountCalendar(
      calendar({ windows: [{ ...OFFICE, certificates: ["api-*"] }] }),
      "default",
    );
    const now = at("2026-12-04T10:00:00Z");
    expect(c.timing("api-eu", { now, expiry: far }).kind).toBe("waiting");
    expect(c.timing("www", { now, expiry: far }).kind).toBe("unrestricted");
  });

  it("a freeze holds every certificate, windows or none; after it the next opening counts", () => {
    const freeze: Freeze = {
      label: "CERTSCHED_RENEWAL_FREEZES[0]",
      from: at("2026-12-20T00:00:00Z"),
      to: at("2027-01-06T00:00:00Z"),
      reason: "year end",
    };
    const none = new AccountCalendar(calendar({ freezes: [freeze] }), "default");
    const frozen = none.timing("www", { now: at("2026-12-22T10:00:00Z"), expiry: far });
    expect(frozen).toMatchObject({
      kind: "waiting",
      frozen: { reason: "year end" },
      next: { opensAt: freeze.to },
    });
    expect(none.timing("www", { now: at("2026-12-19T23:59:59Z"), expiry: far }).kind).toBe(
      "unrestricted",
    );
    expect(none.timing("www", { now: freeze.from, expiry: far }).kind).toBe("waiting");
    expect(none.timing("www", { now: at("2027-01-05T23:59:59Z"), expiry: far }).kind).toBe(
      "waiting",
    );
    expect(none.timing("www", { now: at("2027-01-06T00:00:00Z"), expiry: far }).kind).toBe(
      "unrestricted",
    );
    const office = new AccountCalendar(
      calendar({ windows: [OFFICE], freezes: [freeze] }),
      "default",
    );
    // Wednesday 2026-12-23 inside office hours, but frozen; next: Wednesday 2027-01-06 09:00.
    expect(office.timing("api", { now: at("2026-12-23T10:00:00Z"), expiry: far })).toMatchObject({
      kind: "waiting",
      next: { opensAt: at("2027-01-06T08:00:00Z") },
    });
  });

  it("disabled by policy: exact names beat patterns, then the first pattern declared", () => {
    const c = new AccountCalendar(
      calendar({
        policies: [
          { label: "P[0]", certificates: ["legacy-*"], policy: "disabled" },
          { label: "P[1]", certificates: ["legacy-keep"], policy: "renew" },
          { label: "P[2]", certificates: ["legacy-?"], policy: "renew" },
        ],
      }),
      "default",
    );
    const now = at("2026-12-04T10:00:00Z");
    expect(c.timing("legacy-old", { now, expiry: far })).toMatchObject({
      kind: "disabled",
      policy: { label: "P[0]" },
    });
    expect(c.timing("legacy-keep", { now, expiry: far }).kind).toBe("unrestricted");
    expect(c.timing("legacy-x", { now, expiry: far }).kind).toBe("disabled");
    expect(c.timing("current", { now, expiry: far }).kind).toBe("unrestricted");
  });

  it("jitter: each account opens at its own offset, less than half the window, the same every time", () => {
    const cal = calendar({ windows: [OFFICE], jitterMs: 30 * 60_000 });
    const offsets = ["a", "b", "c", "d", "e", "f"].map((account) => {
      const t = new AccountCalendar(cal, account).timing("x", {
        now: at("2026-12-04T10:00:00Z"),
        expiry: far,
      });
      if (t.kind !== "waiting" || !t.next) throw new Error("expected waiting");
      return t.next.opensAt.getTime() - at("2026-12-08T08:00:00Z").getTime();
    });
    for (const o of offsets) {
      expect(o).toBeGreaterThanOrEqual(0);
      expect(o).toBeLessThan(30 * 60_000);
    }
    expect(new Set(offsets).size).toBeGreaterThan(3);
    const again = new AccountCalendar(cal, "a").timing("x", {
      now: at("2026-12-04T10:00:00Z"),
      expiry: far,
    });
    expect(again.kind === "waiting" && again.next?.opensAt.getTime()).toBe(
      at("2026-12-08T08:00:00Z").getTime() + (offsets[0] ?? 0),
    );
  });
});

describe("the guarantee: renewed outside the windows at the last safe run, not later", () => {
  /** The first hourly run from `from` at which the certificate is not left waiting. */
  function renewedAt(
    c: AccountCalendar,
    expiry: Date,
    from: Date,
    nextTick: (d: Date) => Date | undefined,
  ) {
    for (let t = nextTick(new Date(from.getTime() - 1)); t && t < expiry; t = nextTick(t)) {
      const timing: Timing = c.timing("api", { now: t, expiry, nextTick });
      if (timing.kind !== "waiting") return { at: t, timing };
    }
    return undefined;
  }

  it("a monthly window that opens after the expiry less the margin: renewed at the last hourly run before it (Berlin, across the March DST change)", () => {
    const monthly: WindowRule = {
      label: "W",
      start: "0 9 1 * *",
      durationMs: 2 * HOUR,
      timeZone: "Europe/Berlin",
    };
    const c = new AccountCalendar(calendar({ windows: [monthly], marginMs: 3 * DAY }), "default");
    const expiry = at("2027-03-30T12:00:00Z");
    const hourly = ticks("0 0 * * * *");
    // Due from 2027-03-10; the window opens 2027-04-01 09:00 CEST, after 2027-03-27 12:00 UTC.
    const renewed = renewedAt(c, expiry, at("2027-03-10T12:00:00Z"), hourly);
    expect(renewed?.at.toISOString()).toBe("2027-03-27T12:00:00.000Z");
    expect(renewed?.timing).toMatchObject({
      kind: "outside",
      because: "expiry",
      mustRenewBy: at("2027-03-27T12:00:00Z"),
    });
    // One run earlier it waits, saying a later run renews it outside the windows.
    expect(
      c.timing("api", { now: at("2027-03-27T11:00:00Z"), expiry, nextTick: hourly }),
    ).toMatchObject({ kind: "waiting", outsideLater: true });
  });

  it("an opening the DST change moves: 02:30 on 2027-03-28 Berlin opens at 03:00 CEST (01:00 UTC)", () => {
    const w: WindowRule = {
      label: "W",
      start: "30 2 28 3 *",
      durationMs: 30 * 60_000,
      timeZone: "Europe/Berlin",
    };
    const c = new AccountCalendar(calendar({ windows: [w], marginMs: HOUR }), "default");
    const quarter = ticks("0 */15 * * * *");
    // Must be renewed by 01:10 UTC: the run of 01:00 UTC is inside the shifted opening.
    const inTime = renewedAt(c, at("2027-03-28T02:10:00Z"), at("2027-03-27T00:00:00Z"), quarter);
    expect(inTime?.at.toISOString()).toBe("2027-03-28T01:00:00.000Z");
    expect(inTime?.timing.kind).toBe("open");
    // Must be renewed by 00:50 UTC: the opening comes too late, the last run before it renews.
    const early = renewedAt(c, at("2027-03-28T01:50:00Z"), at("2027-03-27T00:00:00Z"), quarter);
    expect(early?.at.toISOString()).toBe("2027-03-28T00:45:00.000Z");
    expect(early?.timing.kind).toBe("outside");
  });

  it("New York across its November change: a 01:30 opening on 2026-11-01 happens once, in EDT", () => {
    const w: WindowRule = {
      label: "W",
      start: "30 1 1 11 *",
      durationMs: 30 * 60_000,
      timeZone: "America/New_York",
    };
    const c = new AccountCalendar(calendar({ windows: [w], marginMs: HOUR }), "default");
    const quarter = ticks("0 */15 * * * *");
    const renewed = renewedAt(c, at("2026-11-01T07:00:00Z"), at("2026-10-31T00:00:00Z"), quarter);
    expect(renewed?.at.toISOString()).toBe("2026-11-01T05:30:00.000Z");
    expect(renewed?.timing.kind).toBe("open");
    // The repeated 01:30 (EST, 06:30 UTC) is not an opening.
    expect(
      c.timing("api", { now: at("2026-11-01T06:35:00Z"), expiry: far, nextTick: quarter }).kind,
    ).toBe("waiting");
  });

  it("without a timer, renewed outside the windows as soon as waiting for the next opening is unsafe", () => {
    const monthly: WindowRule = {
      label: "W",
      start: "0 9 1 * *",
      durationMs: 2 * HOUR,
      timeZone: "Europe/Berlin",
    };
    const c = new AccountCalendar(calendar({ windows: [monthly], marginMs: 3 * DAY }), "default");
    expect(
      c.timing("api", { now: at("2027-03-10T12:00:00Z"), expiry: at("2027-03-30T12:00:00Z") }).kind,
    ).toBe("outside");
    // The opening of April 1st (07:00 UTC) is in time for an expiry at April 4th 07:00 UTC.
    expect(
      c.timing("api", { now: at("2027-03-15T12:00:00Z"), expiry: at("2027-04-04T07:00:00Z") }).kind,
    ).toBe("waiting");
    expect(
      c.timing("api", { now: at("2027-03-15T12:00:00Z"), expiry: at("2027-04-04T06:59:59Z") }).kind,
    ).toBe("outside");
  });

  it("the CA's ARI window ending before the next opening is renewed outside the windows", () => {
    const c = new AccountCalendar(calendar({ windows: [OFFICE] }), "default");
    const now = at("2026-12-04T10:00:00Z");
    const t = c.timing("api", { now, expiry: far, ariEnd: at("2026-12-06T00:00:00Z") });
    expect(t).toMatchObject({
      kind: "outside",
      because: "ari",
      mustRenewBy: at("2026-12-06T00:00:00Z"),
    });
    // An ARI window that lasts past the next opening waits for it.
    expect(c.timing("api", { now, expiry: far, ariEnd: at("2026-12-09T00:00:00Z") }).kind).toBe(
      "waiting",
    );
  });
});

describe("AccountCalendar.upcoming", () => {
  it("lists each opening and the freezes over the next days, in order", () => {
    const freeze: Freeze = {
      label: "F",
      from: at("2026-12-09T00:00:00Z"),
      to: at("2026-12-10T00:00:00Z"),
      reason: "release",
    };
    const c = new AccountCalendar(calendar({ windows: [OFFICE], freezes: [freeze] }), "default");
    const { openings, freezes } = c.upcoming(at("2026-12-04T00:00:00Z"), 10);
    expect(openings.map((o) => [o.opensAtLocal, o.frozenBy?.label])).toEqual([
      ["2026-12-08 09:00 Europe/Berlin", undefined],
      ["2026-12-09 09:00 Europe/Berlin", "F"],
      ["2026-12-10 09:00 Europe/Berlin", undefined],
    ]);
    expect(freezes).toEqual([freeze]);
  });
});
