import { afterEach, describe, expect, it } from "vitest";
import { APP_SERVICE } from "../../../../shared/core/certificate/fields.js";
import { OPEN_CALENDAR, type RenewalCalendar } from "../../../../shared/core/windows/calendar.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";
import { type AriWorld, startAriWorld } from "../../../support/ariWorld.js";

/**
 * The CA's word and the renewal calendar, end to end (sim/acme answers the CertID, the
 * simulator's service receives or not the v3 renewal): a disabled certificate is never sent; one
 * outside its windows waits for the next opening when that comes before the CA's window ends,
 * and is renewed now, saying so, when it does not.
 */

let world: AriWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A daily window of an hour opening `inMs` from now (UTC), or weekly when `weekly`. */
function calendarAt(now: Date, inMs: number, more: Partial<RenewalCalendar> = {}): RenewalCalendar {
  const opens = new Date(now.getTime() + inMs);
  const day = inMs >= DAY_MS ? String(opens.getUTCDay()) : "*";
  return {
    ...OPEN_CALENDAR,
    jitterMs: 0,
    windows: [
      {
        label: "CERTSCHED_RENEWAL_WINDOWS[0]",
        start: `${opens.getUTCMinutes()} ${opens.getUTCHours()} * * ${day}`,
        durationMs: HOUR_MS,
        timeZone: "Etc/UTC",
      },
    ],
    ...more,
  };
}

/** An ARI world whose account declares `calendar`; its certificate expires in 80 days. */
async function open(calendarOf: (now: Date) => RenewalCalendar): Promise<AriWorld> {
  const w = await startAriWorld();
  world = w;
  const now = w.clock.now();
  await w.inventory.upsert([
    {
      certificateName: "www",
      rootDomain: "www.ari.test",
      target: APP_SERVICE,
      source: "created",
      seenAt: now,
      serviceExpiry: new Date(now.getTime() + 80 * DAY_MS),
    },
  ]);
  // The account's settings as loaded with the calendar declared.
  Object.assign(w.runtime, {
    settings: { ...w.runtime.settings, renewalCalendar: calendarOf(now) },
  });
  // The CA's window started an hour ago and ends in a day.
  w.setWindow({
    start: new Date(now.getTime() - HOUR_MS),
    end: new Date(now.getTime() + DAY_MS),
  });
  return w;
}

const renewals = (w: AriWorld) => w.sim.requestsFor("renew");
const ariLines = (w: AriWorld) =>
  w.lines.filter((l) => l.message.startsWith("certsched ARI: www")).map((l) => l.message);

describe("ARI and the renewal calendar", () => {
  it("never sends a certificate its policy disables", async () => {
    const w = await open((now) =>
      calendarAt(now, 2 * HOUR_MS, {
        policies: [
          { label: "CERTSCHED_CERTIFICATE_POLICY[0]", certificates: ["www"], policy: "disabled" },
        ],
      }),
    );
    await w.verify();
    expect(renewals(w)).toHaveLength(0);
    expect(ariLines(w).join("\n")).toMatch(/not renewed: .*CERTSCHED_CERTIFICATE_POLICY\[0\]/);
  });

  it("waits for the next opening when it comes before the CA's window ends; asks again then", async () => {
    const w = await open((now) => calendarAt(now, 2 * HOUR_MS));
    await w.verify();
    expect(renewals(w)).toHaveLength(0);
    expect(ariLines(w).join("\n")).toContain("not renewed yet");
    // Inside the window, on a later run: renewed.
    w.clock.advance(2 * HOUR_MS + 60_000);
    await w.verify();
    expect(renewals(w)).toHaveLength(1);
  });

  it("renews now, outside the windows, when the next opening comes after the CA's window ends", async () => {
    const w = await open((now) => calendarAt(now, 3 * DAY_MS));
    await w.verify();
    expect(renewals(w)).toHaveLength(1);
    const { items } = await w.history.events({ certificateName: "www", since: new Date(0) });
    const scheduled = items.find((e) => e.event === "renewal-scheduled");
    expect(scheduled?.detail).toMatch(/outside/);
    expect(scheduled?.detail).toContain("the CA's word beats the calendar");
  });

  it("a preflight block still blocks", async () => {
    const w = await open((now) => calendarAt(now, 3 * DAY_MS));
    await w.inventory.recordPreflight("www", {
      at: w.clock.now(),
      status: "will-fail",
      rootDomain: "www.ari.test",
      checks: [{ check: "caa", status: "fail", reason: "caa-forbids", detail: "seeded" }],
    });
    await w.verify();
    expect(renewals(w)).toHaveLength(0);
    expect(ariLines(w).join("\n")).toContain("its last preflight blocks the renewal");
  });
});
