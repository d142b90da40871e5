import { afterEach, describe, expect, it } from "vitest";
import type { AccountPorts } from "../../../../shared/app/services.js";
import { memoryHistory } from "../../../../shared/core/ports/history.js";
import { type Inventory, memoryInventory } from "../../../../shared/core/ports/inventory.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import type { CertificateResult, SweepSummary } from "../../../../shared/core/renewal/summary.js";
import { nextOccurrence, parseSchedule } from "../../../../shared/core/schedule/ncrontab.js";
import {
  OPEN_CALENDAR,
  type RenewalCalendar,
  type WindowRule,
} from "../../../../shared/core/windows/calendar.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";
import { sweep } from "../../../../shared/usecases/sweep/sweep.js";
import { type Simulator, startSimulator } from "../../../../sim/index.js";
import { collectingLogger, runtimeFor } from "../../../support/app.js";
import { type FakeClock, fakeClock } from "../../../support/clock.js";
import { type Receiver, startReceiver } from "../../../support/webhookReceiver.js";

// The sweep and the renewal calendar over the simulator, swept every hour as the timer
// "0 0 * * * *" fires; what reached the simulator (its request log) is what was renewed.

const HOURLY = parseSchedule("0 0 * * * *");
const nextTick = (after: Date) => (HOURLY.ok ? nextOccurrence(HOURLY.schedule, after) : undefined);
const MARGIN_MS = 3 * DAY_MS;

/** A window as declared, with no jitter: each opening starts at its first minute. */
function windowOf(start: string, timeZone: string, hours: number, index = 0): WindowRule {
  return {
    label: `CERTSCHED_RENEWAL_WINDOWS[${index}]`,
    start,
    durationMs: hours * HOUR_MS,
    timeZone,
  };
}

function calendarOf(more: Partial<RenewalCalendar>): RenewalCalendar {
  return { ...OPEN_CALENDAR, marginMs: MARGIN_MS, jitterMs: 0, ...more };
}

interface World {
  readonly sim: Simulator;
  readonly clock: FakeClock;
  readonly runtime: AccountPorts;
  readonly logs: string[];
}

const open: World[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  for (const w of open.splice(0)) {
    await w.runtime.close();
    await w.sim.close();
  }
  for (const r of receivers.splice(0)) await r.close();
});

async function world(
  start: string,
  certificates: readonly { readonly name: string; readonly expiry: Date }[],
  calendar: RenewalCalendar,
  options: { settings?: Record<string, string>; inventory?: Inventory } = {},
): Promise<World> {
  const clock = fakeClock(start);
  const sim = await startSimulator({
    now: clock.now,
    certificates: certificates.map((c) => ({
      certificateName: c.name,
      rootDomain: `${c.name}.example.com`,
      expiryDate: c.expiry,
    })),
  });
  const base = runtimeFor(sim, options.settings ?? {}, {
    now: clock.now,
    ledger: memoryLedger(),
    history: memoryHistory(),
    ...(options.inventory ? { inventory: options.inventory } : {}),
  });
  const runtime: AccountPorts = {
    ...base,
    settings: { ...base.settings, renewalCalendar: calendar },
    renewalTimer: nextTick,
  };
  open.push({ sim, clock, runtime, logs: [] });
  return open.at(-1) as World;
}

/** One sweep at `at`, as the timer's. */
async function sweepAt(w: World, at: Date): Promise<SweepSummary> {
  w.clock.set(at);
  const { log, lines } = collectingLogger();
  const summary = await sweep(w.runtime, log, { trigger: "timer" });
  w.logs.push(...lines.map((l) => `${l.level} ${l.message}`));
  return summary;
}

/** Sweeps every hour from `from` (included) to `to` (excluded); each sweep's summary by time. */
async function sweepHourly(w: World, from: Date, to: Date): Promise<Map<string, SweepSummary>> {
  const swept = new Map<string, SweepSummary>();
  for (let t = from.getTime(); t < to.getTime(); t += HOUR_MS) {
    swept.set(new Date(t).toISOString(), await sweepAt(w, new Date(t)));
  }
  return swept;
}

/** Each renewal request the simulator received: certificate and when (sim clock), in order. */
function renewals(sim: Simulator): { name: string; at: string }[] {
  return sim.requestsFor("publicRenew").map((r) => ({
    name:
      (JSON.parse(r.body) as { certificate?: { certificateName?: string } }).certificate
        ?.certificateName ?? "?",
    at: r.at.toISOString(),
  }));
}

function resultOf(summary: SweepSummary | undefined, name: string): CertificateResult | undefined {
  return summary?.results.find((r) => r.certificateName === name);
}

/** The weekday (0 Sunday) and hour of `at` in `timeZone`. */
function localOf(at: Date, timeZone: string): { day: number; hour: number } {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    weekday: "short",
    hour: "2-digit",
    hourCycle: "h23",
  }).formatToParts(at);
  const day = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].indexOf(
    parts.find((p) => p.type === "weekday")?.value ?? "",
  );
  return { day, hour: Number(parts.find((p) => p.type === "hour")?.value) };
}

const at = (iso: string) => new Date(iso);
/** A certificate whose last safe moment (expiry less the margin) is `mustRenewBy`. */
const mustRenewBy = (iso: string) => new Date(at(iso).getTime() + MARGIN_MS);

describe("the sweep inside renewal windows", () => {
  it("sends renewals only inside a Tue-Thu 09:00-16:00 Europe/Berlin window, swept every hour for a week", async () => {
    // Monday 2027-01-11 00:00 UTC; CET (UTC+1): the window is 08:00-15:00 UTC.
    const start = at("2027-01-11T00:00:00.000Z");
    const w = await world(
      start.toISOString(),
      [
        // Due from the start: renewed as the window first opens, Tuesday 09:00 Berlin.
        { name: "due-monday", expiry: new Date(start.getTime() + 15 * DAY_MS) },
        // Due from Wednesday 18:00 UTC, after that day's window closed: Thursday's first hour.
        { name: "due-wednesday-evening", expiry: at("2027-02-02T18:00:00.000Z") },
        // Due from Friday: waits over the weekend, for Tuesday's window (in time for it).
        { name: "due-friday", expiry: at("2027-02-04T12:00:00.000Z") },
      ],
      calendarOf({ windows: [windowOf("0 9 * * 2-4", "Europe/Berlin", 7)] }),
    );
    const swept = await sweepHourly(w, start, new Date(start.getTime() + 7 * DAY_MS));

    const sent = renewals(w.sim);
    expect(sent).toEqual([
      { name: "due-monday", at: "2027-01-12T08:00:00.000Z" },
      { name: "due-wednesday-evening", at: "2027-01-14T08:00:00.000Z" },
    ]);
    for (const r of sent) {
      const local = localOf(new Date(r.at), "Europe/Berlin");
      expect([2, 3, 4]).toContain(local.day);
      expect(local.hour).toBeGreaterThanOrEqual(9);
      expect(local.hour).toBeLessThan(16);
    }
    // Before the window: waiting, with when it opens in Berlin and in UTC.
    const monday = resultOf(swept.get("2027-01-11T12:00:00.000Z"), "due-monday");
    expect(monday).toMatchObject({
      outcome: "waiting",
      reason: "OutsideWindow",
      window: {
        state: "waiting",
        window: "CERTSCHED_RENEWAL_WINDOWS[0]",
        opensAt: "2027-01-12T08:00:00.000Z",
        opensAtLocal: expect.stringContaining("2027-01-12 09:00"),
        timeZone: "Europe/Berlin",
      },
    });
    expect(monday?.detail).toBe(monday?.window?.detail);
    // Inside it: renewed, the result's note says so.
    expect(resultOf(swept.get("2027-01-12T08:00:00.000Z"), "due-monday")).toMatchObject({
      outcome: "renewal-scheduled",
      window: { state: "open", window: "CERTSCHED_RENEWAL_WINDOWS[0]" },
    });
    // Friday's certificate still waits at the end of the week, for Tuesday 09:00 Berlin.
    const last = swept.get("2027-01-17T23:00:00.000Z");
    expect(resultOf(last, "due-friday")).toMatchObject({
      outcome: "waiting",
      window: { opensAt: "2027-01-19T08:00:00.000Z" },
    });
    // Waiting is neither a failure nor a problem; the counts say how many.
    expect(last?.failed).toBe(false);
    expect(last?.problems).toEqual([]);
    expect(last?.counts).toMatchObject({ due: 1, waiting: 1, disabled: 0 });
  });

  it("a freeze holds inside the windows, and renewals resume when it ends", async () => {
    const start = at("2027-01-11T00:00:00.000Z");
    const w = await world(
      start.toISOString(),
      [{ name: "frozen", expiry: new Date(start.getTime() + 18 * DAY_MS) }],
      calendarOf({
        windows: [windowOf("0 9 * * 1-5", "Europe/Berlin", 7)],
        freezes: [
          {
            label: "CERTSCHED_RENEWAL_FREEZES[0]",
            from: at("2027-01-10T23:00:00.000Z"),
            to: at("2027-01-13T23:00:00.000Z"),
            reason: "release week",
          },
        ],
      }),
    );
    const swept = await sweepHourly(w, start, at("2027-01-14T12:00:00.000Z"));
    expect(renewals(w.sim)).toEqual([{ name: "frozen", at: "2027-01-14T08:00:00.000Z" }]);
    // Inside Tuesday's window, but frozen: waiting, the freeze and its reason named.
    expect(resultOf(swept.get("2027-01-12T10:00:00.000Z"), "frozen")).toMatchObject({
      outcome: "waiting",
      reason: "Frozen",
      window: {
        state: "waiting",
        frozen: { reason: "release week", until: "2027-01-13T23:00:00.000Z" },
      },
    });
  });
});

/** The guarantee's cases: a zone, its DST change, and the Monday 09:00 local window after it. */
const DST_CASES = [
  {
    zone: "Europe/Berlin",
    change: "spring (2027-03-28)",
    from: "2027-03-27T00:00:00.000Z",
    // Monday 2027-03-29 09:00 CEST = 07:00 UTC (it was 08:00 UTC in CET).
    opensAt: "2027-03-29T07:00:00.000Z",
  },
  {
    zone: "Europe/Berlin",
    change: "autumn (2027-10-31)",
    from: "2027-10-30T00:00:00.000Z",
    // Monday 2027-11-01 09:00 CET = 08:00 UTC (it was 07:00 UTC in CEST).
    opensAt: "2027-11-01T08:00:00.000Z",
  },
  {
    zone: "America/New_York",
    change: "spring (2027-03-14)",
    from: "2027-03-13T00:00:00.000Z",
    // Monday 2027-03-15 09:00 EDT = 13:00 UTC (it was 14:00 UTC in EST).
    opensAt: "2027-03-15T13:00:00.000Z",
  },
  {
    zone: "America/New_York",
    change: "autumn (2027-11-07)",
    from: "2027-11-06T00:00:00.000Z",
    // Monday 2027-11-08 09:00 EST = 14:00 UTC (it was 13:00 UTC in EDT).
    opensAt: "2027-11-08T14:00:00.000Z",
  },
] as const;

describe("the guarantee: no window lets a certificate expire", () => {
  it.each(DST_CASES)(
    "$zone, $change: renewed outside the window at the last safe timer firing, not one earlier; one that can wait is renewed in the window",
    async ({ zone, from, opensAt }) => {
      const opening = at(opensAt).getTime();
      // Its last safe moment is half an hour before the opening: the 06:00-like firing before.
      const lastSafe = new Date(opening - HOUR_MS);
      const w = await world(
        from,
        [
          {
            name: "cannot-wait",
            expiry: mustRenewBy(new Date(opening - HOUR_MS / 2).toISOString()),
          },
          { name: "can-wait", expiry: mustRenewBy(new Date(opening + HOUR_MS / 2).toISOString()) },
        ],
        calendarOf({ windows: [windowOf("0 9 * * 1", zone, 7)] }),
      );
      const swept = await sweepHourly(w, at(from), new Date(opening + HOUR_MS));

      expect(renewals(w.sim)).toEqual([
        { name: "cannot-wait", at: lastSafe.toISOString() },
        { name: "can-wait", at: opensAt },
      ]);
      // One firing earlier it still waited, its deadline named.
      const before = resultOf(
        swept.get(new Date(lastSafe.getTime() - HOUR_MS).toISOString()),
        "cannot-wait",
      );
      expect(before).toMatchObject({
        outcome: "waiting",
        window: {
          state: "waiting",
          opensAt,
          mustRenewBy: new Date(opening - HOUR_MS / 2).toISOString(),
        },
      });
      const outside = resultOf(swept.get(lastSafe.toISOString()), "cannot-wait");
      expect(outside).toMatchObject({
        outcome: "renewal-scheduled",
        window: { state: "outside", because: "expiry", opensAt, timeZone: zone },
      });
      // Its detail says it was renewed outside its window, and why, before the service's words.
      expect(outside?.detail.startsWith(outside?.window?.detail ?? "?")).toBe(true);
      expect(outside?.window?.detail).toMatch(/outside/);
      expect(resultOf(swept.get(opensAt), "can-wait")).toMatchObject({
        outcome: "renewal-scheduled",
        window: { state: "open" },
      });
    },
  );
});

describe("what the calendar holds, and what it shows", () => {
  const start = at("2027-01-12T10:00:00.000Z"); // Tuesday 11:00 Berlin: inside the window
  const windows = [windowOf("0 9 * * 2-4", "Europe/Berlin", 7)];

  it("never sends a disabled certificate, even inside its window, and counts it", async () => {
    const w = await world(
      start.toISOString(),
      [
        { name: "legacy-api", expiry: new Date(start.getTime() + 5 * DAY_MS) },
        { name: "www", expiry: new Date(start.getTime() + 6 * DAY_MS) },
      ],
      calendarOf({
        windows,
        policies: [
          {
            label: "CERTSCHED_CERTIFICATE_POLICY[0]",
            certificates: ["legacy-*"],
            policy: "disabled",
          },
        ],
      }),
    );
    const first = await sweepAt(w, start);
    // Nor on the next day, nor outside the window on an expiry that cannot wait.
    await sweepAt(w, new Date(start.getTime() + DAY_MS));
    const late = await sweepAt(w, new Date(start.getTime() + 4 * DAY_MS + 20 * HOUR_MS));
    expect(w.sim.renewCallsFor("legacy-api")).toBe(0);
    expect(renewals(w.sim).map((r) => r.name)).toEqual(["www"]);
    for (const summary of [first, late]) {
      expect(resultOf(summary, "legacy-api")).toMatchObject({
        outcome: "disabled",
        reason: "PolicyDisabled",
        window: { state: "disabled", policy: "CERTSCHED_CERTIFICATE_POLICY[0]" },
      });
      expect(summary.counts.disabled).toBe(1);
      expect(summary.failed).toBe(false);
      expect(summary.problems).toEqual([]);
    }
    // Nothing claimed in the ledger for it.
    const [legacy] = w.sim.certificates().filter((c) => c.certificateName === "legacy-api");
    expect(await w.runtime.ledger.read(legacy?.id ?? -1)).toBeUndefined();
  });

  it("a stuck certificate outside its window stays stuck (the run fails) and is asked again only in the window", async () => {
    // Saturday 2027-01-16 10:00 UTC: outside the Tuesday-to-Thursday window.
    const saturday = at("2027-01-16T10:00:00.000Z");
    const expiry = new Date(saturday.getTime() + 15 * DAY_MS);
    const w = await world(
      saturday.toISOString(),
      [{ name: "www", expiry }],
      calendarOf({ windows }),
    );
    const [www] = w.sim.certificates();
    await w.runtime.ledger.write(
      {
        id: www?.id ?? -1,
        certificateName: "www",
        expiryAtRequest: expiry,
        firstRequestedAt: new Date(saturday.getTime() - 3 * DAY_MS),
        lastRequestedAt: new Date(saturday.getTime() - 3 * DAY_MS),
        outcome: "renewal-scheduled",
        attempts: 1,
        detail: undefined,
      },
      undefined,
    );
    const summary = await sweepAt(w, saturday);
    expect(resultOf(summary, "www")).toMatchObject({
      outcome: "stuck",
      window: { state: "waiting" },
      detail: expect.stringMatching(
        /^still due .*; asked again in its window \(outside its renewal windows; waiting: the next window opens 2027-01-19 09:00 Europe\/Berlin/,
      ),
    });
    expect(summary.failed).toBe(true);
    expect(w.sim.renewCallsFor("www")).toBe(0);
    // Tuesday 09:00 Berlin: asked again.
    await sweepAt(w, at("2027-01-19T08:00:00.000Z"));
    expect(w.sim.renewCallsFor("www")).toBe(1);
  });

  it("a certificate its last preflight blocks stays blocked inside a window", async () => {
    const inventory = memoryInventory();
    await inventory.upsert([{ certificateName: "blocked", source: "due-list", seenAt: start }]);
    await inventory.recordPreflight("blocked", {
      at: new Date(start.getTime() - 60_000),
      status: "will-fail",
      rootDomain: "blocked.example.com",
      checks: [{ check: "caa", status: "fail", reason: "caa-forbids", detail: "seeded" }],
    });
    const w = await world(
      start.toISOString(),
      [{ name: "blocked", expiry: new Date(start.getTime() + 5 * DAY_MS) }],
      calendarOf({ windows }),
      { inventory },
    );
    const summary = await sweepAt(w, start);
    expect(resultOf(summary, "blocked")).toMatchObject({
      outcome: "blocked",
      blockedBy: "caa-forbids",
    });
    expect(w.sim.renewCallsFor("blocked")).toBe(0);
    expect(summary.failed).toBe(true);
  });

  it("puts the window's words in the results, the history and the webhook's body; warnings are logged once a sweep", async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const sunday = at("2027-01-10T12:00:00.000Z"); // no window before Tuesday
    const w = await world(
      sunday.toISOString(),
      [
        // Its last safe moment is before Tuesday's opening: renewed now, outside the window.
        { name: "urgent", expiry: mustRenewBy("2027-01-10T12:30:00.000Z") },
        { name: "patient", expiry: new Date(sunday.getTime() + 15 * DAY_MS) },
        { name: "retired", expiry: new Date(sunday.getTime() + 15 * DAY_MS) },
      ],
      calendarOf({
        windows,
        policies: [
          {
            label: "CERTSCHED_CERTIFICATE_POLICY[0]",
            certificates: ["retired"],
            policy: "disabled",
          },
        ],
        warnings: ["a gap of 26 days between openings"],
      }),
      {
        settings: {
          CERTSCHED_WEBHOOK_URL: `${receiver.baseUrl}/hook`,
          CERTSCHED_WEBHOOK_FORMAT: "json",
        },
      },
    );
    const summary = await sweepAt(w, sunday);
    expect(renewals(w.sim).map((r) => r.name)).toEqual(["urgent"]);
    expect(summary.counts).toMatchObject({
      due: 3,
      "renewal-scheduled": 1,
      waiting: 1,
      disabled: 1,
    });
    expect(w.logs.filter((l) => l.includes("a gap of 26 days"))).toHaveLength(1);

    const events = await w.runtime.history.events({ since: new Date(0) });
    const byName = new Map(events.items.map((e) => [e.certificateName, e]));
    expect(byName.get("patient")).toMatchObject({ event: "waiting", reason: "OutsideWindow" });
    expect(byName.get("retired")).toMatchObject({ event: "disabled", reason: "PolicyDisabled" });
    expect(byName.get("urgent")).toMatchObject({ event: "renewal-scheduled" });
    expect(byName.get("urgent")?.detail).toMatch(/outside/);
    expect(byName.get("patient")?.detail).toBe(resultOf(summary, "patient")?.window?.detail);

    // The sweep succeeded, but a renewal outside the windows is posted all the same.
    expect(summary.failed).toBe(false);
    expect(receiver.received).toHaveLength(1);
    const body = receiver.received[0]?.json as Record<string, unknown>;
    expect(body.renewedOutsideWindow).toEqual([
      expect.objectContaining({
        certificateName: "urgent",
        window: expect.objectContaining({ state: "outside", because: "expiry" }),
      }),
    ]);
    expect(body.waiting).toEqual([expect.objectContaining({ certificateName: "patient" })]);
    expect(body.disabled).toEqual(["retired"]);
    expect(body.text).toMatch(/urgent .*outside/);
    expect(body.text).toMatch(
      /Waiting for their window \(not failures\): patient \(opens 2027-01-12 09:00/,
    );
    expect(body.certificates).toEqual([]);
  });
});
