import { afterEach, describe, expect, inject, it } from "vitest";
import { tableHistory } from "../../../../shared/adapters/storage/tableHistory.js";
import { tableInventory } from "../../../../shared/adapters/storage/tableInventory.js";
import { tableLedger } from "../../../../shared/adapters/storage/tableLedger.js";
import type { AccountPorts } from "../../../../shared/app/services.js";
import type { Inventory, PreflightRecord } from "../../../../shared/core/ports/inventory.js";
import type { Ledger } from "../../../../shared/core/ports/ledger.js";
import type { Telemetry } from "../../../../shared/core/ports/telemetry.js";
import { PREFLIGHT_ADVICE } from "../../../../shared/core/preflight/advice.js";
import { PREFLIGHT_FRESH_MS } from "../../../../shared/core/preflight/blocking.js";
import type { FailReason } from "../../../../shared/core/preflight/preflight.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { sweep as runSweep } from "../../../../shared/usecases/sweep/sweep.js";
import { type Simulator, startSimulator } from "../../../../sim/index.js";
import { collectingLogger, leaksIn, runtimeFor, uniqueTableName } from "../../../support/app.js";
import { fakeClock } from "../../../support/clock.js";
import { inMemoryTelemetry } from "../../../support/telemetry.js";
import { startReceiver } from "../../../support/webhookReceiver.js";

/**
 * The sweep consults the last preflight: over the simulator and Azurite (ledger,
 * inventory, history with its request count), on an injected clock. A blocked certificate sends
 * nothing (the simulator's request log), claims nothing (the ledger) and costs nothing (the
 * request count); the others renew.
 */

const T = new Date("2026-03-01T03:00:00.000Z");
const CAA_ADVICE = PREFLIGHT_ADVICE["caa-forbids"];

interface Seed {
  readonly name: string;
  /** How long before the sweep the preflight ran, and what it failed for; none: no preflight. */
  readonly preflight?: { readonly ageMs: number; readonly reasons: readonly FailReason[] };
}

interface Scenario {
  readonly sim: Simulator;
  readonly runtime: AccountPorts;
  readonly ledger: Ledger;
  readonly inventory: Inventory;
}

const open: Scenario[] = [];
const logs: string[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) {
    expect(leaksIn(s.sim, logs)).toEqual([]);
    await s.runtime.close();
    await s.sim.close();
  }
  logs.length = 0;
});

/** A will-fail result as the preflight stores it: one failed check per reason. */
function willFail(at: Date, reasons: readonly FailReason[]): PreflightRecord {
  const checkOf: Record<string, PreflightRecord["checks"][number]["check"]> = {
    "caa-forbids": "caa",
    "dns-not-delegated": "dns-delegation",
    "dns-zone-missing": "dns-zone",
    "hostname-not-bound": "app-binding",
    "app-missing": "app-binding",
  };
  return {
    at,
    status: "will-fail",
    rootDomain: "example.com",
    checks: reasons.map((reason) => ({
      check: checkOf[reason] ?? "caa",
      status: "fail",
      reason,
      detail: `seeded ${reason}`,
    })),
  };
}

async function scenario(
  seeds: readonly Seed[],
  settings: Record<string, string> = {},
  telemetry?: Telemetry,
): Promise<Scenario> {
  const clock = fakeClock(T.toISOString());
  const connectionString = inject("azuriteTableConnectionString");
  const sim = await startSimulator({
    now: clock.now,
    certificates: seeds.map((s, i) => ({
      certificateName: s.name,
      rootDomain: `${s.name}.example.com`,
      expiryDate: new Date(T.getTime() + (5 + i) * DAY_MS),
    })),
  });
  const ledger = tableLedger({ connectionString, tableName: uniqueTableName("pfl") });
  const inventory = tableInventory({ connectionString, tableName: uniqueTableName("pfi") });
  const history = tableHistory({ connectionString, tableName: uniqueTableName("pfh") });
  await inventory.upsert(
    seeds.map((s) => ({ certificateName: s.name, source: "due-list", seenAt: T })),
  );
  for (const s of seeds) {
    if (!s.preflight) continue;
    await inventory.recordPreflight(
      s.name,
      willFail(new Date(T.getTime() - s.preflight.ageMs), s.preflight.reasons),
    );
  }
  const runtime = runtimeFor(sim, settings, {
    now: clock.now,
    ledger,
    inventory,
    history,
    ...(telemetry ? { telemetry } : {}),
  });
  const made = { sim, runtime, ledger, inventory };
  open.push(made);
  return made;
}

async function sweep(s: Scenario, options: Parameters<typeof runSweep>[2] = {}) {
  const { log, lines } = collectingLogger();
  const summary = await runSweep(s.runtime, log, { trigger: "cli", ...options });
  logs.push(...lines.map((l) => l.message));
  const byName = new Map(summary.results.map((r) => [r.certificateName, r]));
  return { summary, byName, lines };
}

/** The certificates a renewal request was sent for (the simulator's request log). */
function renewedNames(sim: Simulator): string[] {
  return sim
    .requestsFor("publicRenew")
    .map(
      (r) =>
        (JSON.parse(r.body) as { certificate?: { certificateName?: string } }).certificate
          ?.certificateName ?? "?",
    )
    .sort();
}

describe("a sweep and the last preflight", () => {
  it("does not renew a due certificate a fresh caa-forbids blocks; the others renew; the run fails naming it", async () => {
    const s = await scenario([
      { name: "blocked", preflight: { ageMs: 60_000, reasons: ["caa-forbids"] } },
      { name: "fine" },
      { name: "no-preflight-kept" },
    ]);

    const { summary, byName, lines } = await sweep(s);

    expect(byName.get("blocked")).toMatchObject({
      outcome: "blocked",
      reason: "PreflightBlocked",
      blockedBy: "caa-forbids",
      detail: `blocked (preflight: caa-forbids): ${CAA_ADVICE}`,
    });
    expect(byName.get("fine")?.outcome).toBe("renewal-scheduled");
    expect(byName.get("no-preflight-kept")?.outcome).toBe("renewal-scheduled");
    // Nothing sent, nothing claimed, nothing counted.
    expect(renewedNames(s.sim)).toEqual(["fine", "no-preflight-kept"]);
    expect(s.sim.renewCallsFor("blocked")).toBe(0);
    const [blockedCert] = s.sim.certificates().filter((c) => c.certificateName === "blocked");
    expect(await s.ledger.read(blockedCert?.id ?? -1)).toBeUndefined();
    expect(summary.requests7d).toBe(1 + 2); // the list and the two renewals
    expect(summary.counts).toMatchObject({ due: 3, blocked: 1, "renewal-scheduled": 2 });
    expect(summary.failed).toBe(true);
    expect(summary.problems).toEqual([
      "1 certificate(s) blocked by their last preflight, not renewed until a person fixes the cause (or renews with --force): blocked",
    ]);
    const errors = lines.filter((l) => l.level === "error").map((l) => l.message);
    expect(errors).toContainEqual(
      expect.stringMatching(
        /^certsched certificate blocked: blocked .*blocked \(preflight: caa-forbids\): add a CAA record.*\[PreflightBlocked\]$/,
      ),
    );
  });

  it("records the blocked certificate in the history, with its detail", async () => {
    const s = await scenario([
      { name: "blocked", preflight: { ageMs: 0, reasons: ["caa-forbids"] } },
    ]);
    const { summary } = await sweep(s);
    expect(summary.counts.blocked).toBe(1);
    const events = await s.runtime.history.events({
      certificateName: "blocked",
      since: new Date(0),
    });
    expect(events.items.map((e) => [e.event, e.reason, e.detail])).toEqual([
      ["blocked", "PreflightBlocked", `blocked (preflight: caa-forbids): ${CAA_ADVICE}`],
    ]);
  });

  it("renews when the preflight is a day and 1 ms old; exactly a day old still blocks", async () => {
    const s = await scenario([
      { name: "day-old", preflight: { ageMs: PREFLIGHT_FRESH_MS, reasons: ["caa-forbids"] } },
      {
        name: "day-and-1ms",
        preflight: { ageMs: PREFLIGHT_FRESH_MS + 1, reasons: ["caa-forbids"] },
      },
    ]);
    const { byName } = await sweep(s);
    expect(byName.get("day-old")?.outcome).toBe("blocked");
    expect(byName.get("day-and-1ms")?.outcome).toBe("renewal-scheduled");
    expect(renewedNames(s.sim)).toEqual(["day-and-1ms"]);
  });

  it("renews a certificate that will fail only for dns-not-delegated (a person need not act first)", async () => {
    const s = await scenario([
      { name: "delegation", preflight: { ageMs: 0, reasons: ["dns-not-delegated"] } },
      {
        name: "delegation-and-zone",
        preflight: { ageMs: 0, reasons: ["dns-not-delegated", "dns-zone-missing"] },
      },
    ]);
    const { byName, summary } = await sweep(s);
    expect(byName.get("delegation")?.outcome).toBe("renewal-scheduled");
    expect(byName.get("delegation-and-zone")).toMatchObject({
      outcome: "blocked",
      detail: `blocked (preflight: dns-zone-missing): ${PREFLIGHT_ADVICE["dns-zone-missing"]}`,
    });
    expect(renewedNames(s.sim)).toEqual(["delegation"]);
    expect(summary.failed).toBe(true);
  });

  it("with force renews it all the same, and says so in the result, the summary and the history", async () => {
    const s = await scenario([
      { name: "blocked", preflight: { ageMs: 0, reasons: ["hostname-not-bound"] } },
      { name: "fine" },
    ]);
    const { byName, summary, lines } = await sweep(s, { force: true });
    expect(byName.get("blocked")).toMatchObject({
      outcome: "renewal-scheduled",
      forcedPast: "hostname-not-bound",
    });
    expect(byName.get("fine")?.forcedPast).toBeUndefined();
    expect(renewedNames(s.sim)).toEqual(["blocked", "fine"]);
    expect(summary).toMatchObject({ forced: true, failed: false });
    expect(summary.counts.blocked).toBe(0);
    expect(lines.map((l) => l.message)).toContainEqual(
      expect.stringMatching(
        /^certsched certificate renewal-scheduled: blocked .*forced past blocked \(preflight: hostname-not-bound\); /,
      ),
    );
    const events = await s.runtime.history.events({
      certificateName: "blocked",
      since: new Date(0),
    });
    expect(events.items[0]?.detail).toMatch(
      /^forced past blocked \(preflight: hostname-not-bound\); /,
    );
    const runs = await s.runtime.history.runs(1);
    expect(runs.items[0]).toMatchObject({ forced: true });
  });

  it("a dry run reports it blocked too (it would not be renewed)", async () => {
    const s = await scenario([
      { name: "blocked", preflight: { ageMs: 0, reasons: ["app-missing"] } },
    ]);
    const { byName } = await sweep(s, { dryRun: true });
    expect(byName.get("blocked")).toMatchObject({ outcome: "blocked", blockedBy: "app-missing" });
    expect(renewedNames(s.sim)).toEqual([]);
  });
});

describe("where a sweep's outcome is shown", () => {
  it("the webhook: the JSON message lists it blocked with its detail; the text says why and what to do", async () => {
    const receiver = await startReceiver();
    try {
      const seeds = [
        { name: "blocked", preflight: { ageMs: 0, reasons: ["caa-forbids"] as FailReason[] } },
        { name: "fine" },
      ];
      const json = await scenario(seeds, {
        CERTSCHED_WEBHOOK_URL: `${receiver.baseUrl}/hook`,
        CERTSCHED_WEBHOOK_FORMAT: "json",
      });
      await sweep(json);
      const [message] = receiver.received.map((r) => r.json as Record<string, unknown>);
      expect(message).toMatchObject({
        status: "failed",
        counts: { blocked: 1, "renewal-scheduled": 1 },
        certificates: [
          {
            certificateName: "blocked",
            outcome: "blocked",
            blockedBy: "caa-forbids",
            detail: `blocked (preflight: caa-forbids): ${CAA_ADVICE}`,
          },
        ],
      });
      expect(String(message?.text)).toMatch(
        /\nDue: 2, Renewal scheduled: 1, Skipped: 0, Failed: 0, Stuck: 0, Blocked: 1\nblocked \(Cloud App Service\): 5 days left, blocked \(preflight: caa-forbids\): add a CAA record/,
      );
    } finally {
      await receiver.close();
    }
  });

  it("telemetry: the sweep span and the outcomes counter count it blocked", async () => {
    const otel = inMemoryTelemetry();
    try {
      const s = await scenario(
        [{ name: "blocked", preflight: { ageMs: 0, reasons: ["dns-zone-missing"] } }],
        {},
        otel.telemetry,
      );
      await sweep(s);
      expect(otel.spans()[0]?.attributes).toMatchObject({
        "certsched.count.blocked": 1,
        "certsched.count.renewal_scheduled": 0,
        "certsched.failed": true,
      });
      const outcomes = otel.exported().get("certsched.sweep.outcomes");
      expect(outcomes?.dataPoints.map((p) => [p.attributes.outcome, p.value])).toEqual([
        ["blocked", 1],
      ]);
    } finally {
      await otel.close();
    }
  });
});

describe("a sweep without storage", () => {
  it("blocks nothing: no preflight results are kept", async () => {
    const clock = fakeClock(T.toISOString());
    const sim = await startSimulator({
      now: clock.now,
      certificates: [{ certificateName: "any", expiryDate: new Date(T.getTime() + 5 * DAY_MS) }],
    });
    const runtime = runtimeFor(sim, { AzureWebJobsStorage: undefined }, { now: clock.now });
    open.push({ sim, runtime, ledger: runtime.ledger, inventory: runtime.inventory });
    expect(runtime.inventory.kind).toBe("none");
    const { log } = collectingLogger();
    const summary = await runSweep(runtime, log);
    expect(summary.results.map((r) => r.outcome)).toEqual(["renewal-scheduled"]);
  });
});
