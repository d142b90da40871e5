import { afterEach, describe, expect, it } from "vitest";
import type { AccountPorts } from "../../../../shared/app/services.js";
import { memoryHistory } from "../../../../shared/core/ports/history.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import { disabledBy, disabledDetail } from "../../../../shared/core/renewal/policyGate.js";
import { OPEN_CALENDAR, type RenewalCalendar } from "../../../../shared/core/windows/calendar.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";
import { renewByName } from "../../../../shared/usecases/renewByName.js";
import { type Simulator, startSimulator } from "../../../../sim/index.js";
import { collectingLogger, runtimeFor } from "../../../support/app.js";
import { fakeClock } from "../../../support/clock.js";

/**
 * A renewal by name (the CLI's renew, the HTTP API's) and the renewal calendar: its windows and
 * freezes never hold a person's request; a certificate its policy disables is refused, naming the
 * policy, unless forced.
 */

const T = "2027-01-10T12:00:00.000Z"; // a Sunday: no window open
const calendar: RenewalCalendar = {
  ...OPEN_CALENDAR,
  jitterMs: 0,
  windows: [
    {
      label: "CERTSCHED_RENEWAL_WINDOWS[0]",
      start: "0 9 * * 2-4",
      durationMs: 7 * HOUR_MS,
      timeZone: "Europe/Berlin",
    },
  ],
  freezes: [
    {
      label: "CERTSCHED_RENEWAL_FREEZES[0]",
      from: new Date("2027-01-01T00:00:00.000Z"),
      to: new Date("2027-01-20T00:00:00.000Z"),
      reason: "release",
    },
  ],
  policies: [
    { label: "CERTSCHED_CERTIFICATE_POLICY[0]", certificates: ["legacy-*"], policy: "disabled" },
    { label: "CERTSCHED_CERTIFICATE_POLICY[1]", certificates: ["legacy-keep"], policy: "renew" },
  ],
};

describe("disabledBy", () => {
  it("names the policy that disables a certificate; an exact renew wins over a pattern", () => {
    const where = { settings: { renewalCalendar: calendar }, account: "default" };
    expect(disabledBy(where, "legacy-api")?.label).toBe("CERTSCHED_CERTIFICATE_POLICY[0]");
    expect(disabledBy(where, "legacy-keep")).toBeUndefined();
    expect(disabledBy(where, "www")).toBeUndefined();
    expect(
      disabledBy({ settings: { renewalCalendar: OPEN_CALENDAR } }, "legacy-api"),
    ).toBeUndefined();
    expect(disabledBy({ settings: {} }, "legacy-api")).toBeUndefined();
  });

  it("says so in words naming the policy", () => {
    expect(disabledDetail({ label: "CERTSCHED_CERTIFICATE_POLICY[0]" })).toBe(
      "disabled by its certificate policy (CERTSCHED_CERTIFICATE_POLICY[0]): it is never renewed; nothing was sent",
    );
  });
});

describe("renewByName and the renewal calendar", () => {
  let sim: Simulator | undefined;
  let runtime: AccountPorts | undefined;
  afterEach(async () => {
    await runtime?.close();
    await sim?.close();
  });

  async function start(): Promise<AccountPorts> {
    const clock = fakeClock(T);
    sim = await startSimulator({
      now: clock.now,
      certificates: ["legacy-api", "www"].map((name) => ({
        certificateName: name,
        rootDomain: `${name}.example.com`,
        expiryDate: new Date(clock.now().getTime() + 10 * DAY_MS),
      })),
    });
    const base = runtimeFor(
      sim,
      {},
      { now: clock.now, ledger: memoryLedger(), history: memoryHistory() },
    );
    runtime = { ...base, settings: { ...base.settings, renewalCalendar: calendar } };
    return runtime;
  }

  const requester = { trigger: "cli", by: "cli" } as const;

  it("renews on a person's request outside every window and inside a freeze", async () => {
    const ports = await start();
    const { log } = collectingLogger();
    const r = await renewByName(ports, "www", requester, log);
    expect(r.status).toBe("scheduled");
    expect(sim?.renewCallsFor("www")).toBe(1);
  });

  it("refuses a disabled certificate, naming the policy, sends nothing and records it", async () => {
    const ports = await start();
    const { log } = collectingLogger();
    const r = await renewByName(ports, "legacy-api", requester, log);
    expect(r).toMatchObject({
      status: "disabled",
      policy: "CERTSCHED_CERTIFICATE_POLICY[0]",
      recorded: false,
      message: disabledDetail({ label: "CERTSCHED_CERTIFICATE_POLICY[0]" }),
    });
    expect(sim?.requests.filter((q) => q.operation !== "token")).toEqual([]);
    const { items } = await ports.history.events({
      certificateName: "legacy-api",
      since: new Date(0),
    });
    expect(items.map((e) => [e.event, e.reason])).toEqual(
      expect.arrayContaining([
        ["manual-request", "ManualRequest"],
        ["disabled", "PolicyDisabled"],
      ]),
    );
  });

  it("renews a disabled certificate when forced, and says past which policy", async () => {
    const ports = await start();
    const { log } = collectingLogger();
    const r = await renewByName(ports, "legacy-api", requester, log, { force: true });
    expect(r).toMatchObject({ status: "scheduled", policy: "CERTSCHED_CERTIFICATE_POLICY[0]" });
    expect(sim?.renewCallsFor("legacy-api")).toBe(1);
    const { items } = await ports.history.events({
      certificateName: "legacy-api",
      since: new Date(0),
    });
    expect(items.find((e) => e.event === "manual-request")?.detail).toContain(
      "forced past its disabled certificate policy (CERTSCHED_CERTIFICATE_POLICY[0])",
    );
  });
});
