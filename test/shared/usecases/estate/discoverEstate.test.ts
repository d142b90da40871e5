import { afterEach, describe, expect, it } from "vitest";
import { ESTATE_ALERT_LINE } from "../../../../shared/core/estate/lines.js";
import { discoverEstate } from "../../../../shared/usecases/estate/discoverEstate.js";
import {
  SANDBOX_ESTATE_SUBSCRIPTION,
  SANDBOX_ESTATE_UNBOUND,
  SANDBOX_ESTATE_UNMANAGED,
} from "../../../../sim/index.js";
import { collectingLogger, leaksIn } from "../../../support/app.js";
import { type EstateWorld, startEstateWorld } from "../../../support/estateWorld.js";
import { type Receiver, startReceiver } from "../../../support/webhookReceiver.js";

/**
 * Estate discovery end to end: Resource Graph in the simulator's Resource Manager, the
 * simulator's vault listing its certificates over TLS, the contoso samples in the inventory.
 */

let world: EstateWorld | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await world?.close();
  await receiver?.close();
  world = receiver = undefined;
});

async function start() {
  receiver = await startReceiver();
  world = await startEstateWorld({
    CERTSCHED_WEBHOOK_URL: `${receiver.baseUrl}/hook`,
    CERTSCHED_WEBHOOK_FORMAT: "json",
  });
  return { world, receiver };
}

describe("discovering the estate", () => {
  it("finds the gateway's certificate from a team's vault expiring in 9 days, the one bound nowhere, and the ones certsched keeps", async () => {
    const { world } = await start();
    const { log } = collectingLogger();
    const run = await discoverEstate(world.runtime, log, {
      trigger: "cli",
      keep: false,
      keyVault: world.keyVault,
    });
    const { report } = run;
    expect(report.problems).toEqual([]);
    const first = report.entries[0];
    const u = SANDBOX_ESTATE_UNMANAGED;
    expect(first?.gaps).toEqual(["unmanaged-expiring"]);
    expect(first?.certificate).toMatchObject({
      kind: "application-gateway",
      name: u.certificate,
      subscriptionId: SANDBOX_ESTATE_SUBSCRIPTION,
      keyVaultId: `https://${u.vault}.vault.azure.net/secrets/${u.certificate}`,
      issuer: "Unknown",
      boundTo: [expect.objectContaining({ kind: "listener", hostName: u.hostName })],
    });
    const days =
      ((first?.certificate.expiresAt?.getTime() ?? 0) - world.now.getTime()) / 86_400_000;
    expect(Math.round(days)).toBe(u.days);
    const unbound = report.entries.find((e) => e.certificate.name === SANDBOX_ESTATE_UNBOUND.name);
    expect(unbound?.gaps).toEqual(["bound-nowhere"]);
    // The vault certificate the gateway uses is one entry, the gateway's, not two.
    expect(report.entries.filter((e) => e.certificate.name === u.certificate)).toHaveLength(1);
    const managed = report.entries.filter((e) => e.managedBy !== undefined);
    expect(managed.length).toBeGreaterThan(0);
    expect(report.counts.managed).toBe(managed.length);
    expect(run).toMatchObject({ entering: [], messages: 0, stored: false });
    expect(await world.store.last(world.runtime.account)).toBeUndefined();
  });

  it("kept: a certificate entering the set is announced once (one alert line, one webhook message) across two runs", async () => {
    const { world, receiver } = await start();
    const first = collectingLogger();
    const options = { trigger: "timer" as const, keep: true, keyVault: world.keyVault };
    const run = await discoverEstate(world.runtime, first.log, options);
    expect(run.entering.map((e) => e.certificate.name)).toEqual([
      SANDBOX_ESTATE_UNMANAGED.certificate,
    ]);
    expect(run).toMatchObject({ messages: 1, stored: true, failed: true });
    const alerts = first.lines.filter((l) => l.message.startsWith(ESTATE_ALERT_LINE));
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.level).toBe("error");
    expect(receiver.received).toHaveLength(1);
    expect(JSON.parse(receiver.received[0]?.body ?? "{}")).toMatchObject({
      event: "estate-alert",
      certificates: [{ name: SANDBOX_ESTATE_UNMANAGED.certificate, kind: "application-gateway" }],
    });
    const second = collectingLogger();
    const again = await discoverEstate(world.runtime, second.log, options);
    expect(again).toMatchObject({ entering: [], messages: 0, stored: true, failed: false });
    expect(second.lines.filter((l) => l.message.startsWith(ESTATE_ALERT_LINE))).toEqual([]);
    expect(receiver.received).toHaveLength(1);
    const texts = [...first.lines, ...second.lines].map((l) => l.message);
    expect(leaksIn(world.sim, [...texts, ...receiver.received.map((r) => r.body)])).toEqual([]);
  });

  it("a vault that refuses is a problem of its own; the rest of the report stands, its consumer kept without a date", async () => {
    const { world } = await start();
    world.vault.forbid(SANDBOX_ESTATE_UNMANAGED.vault);
    const run = await discoverEstate(world.runtime, collectingLogger().log, {
      trigger: "cli",
      keep: false,
      keyVault: world.keyVault,
    });
    expect(run.report.problems).toEqual([
      expect.objectContaining({ where: `vault ${SANDBOX_ESTATE_UNMANAGED.vault}`, status: 403 }),
    ]);
    const gateway = run.report.entries.find((e) => e.certificate.kind === "application-gateway");
    expect(gateway?.certificate.expiresAt).toBeUndefined();
    expect(run.report.entries.some((e) => e.gaps.includes("bound-nowhere"))).toBe(true);
  });

  it("--expiring: a narrower window leaves the 9-day certificate out of the set", async () => {
    const { world } = await start();
    const run = await discoverEstate(world.runtime, collectingLogger().log, {
      trigger: "cli",
      keep: false,
      expiringDays: 8,
      keyVault: world.keyVault,
    });
    expect(run.report.expiringDays).toBe(8);
    expect(run.report.counts["unmanaged-expiring"]).toBe(0);
  });
});
