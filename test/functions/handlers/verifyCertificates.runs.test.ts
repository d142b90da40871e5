import { afterEach, describe, expect, it } from "vitest";
import { verifyCertificates } from "../../../functions/verifyCertificates.js";
import { INSTRUMENTS } from "../../../shared/adapters/telemetry/otelTelemetry.js";
import { getAccountPorts } from "../../../shared/app/services.js";
import { APP_SERVICE } from "../../../shared/core/certificate/fields.js";
import { type Inventory, memoryInventory } from "../../../shared/core/ports/inventory.js";
import { memoryLedger } from "../../../shared/core/ports/ledger.js";
import { VERIFICATION_SUMMARY_PREFIX } from "../../../shared/core/verification/verificationSummary.js";
import { VerificationFailedError } from "../../../shared/lib/errors.js";
import { DAY_MS, HOUR_MS } from "../../../shared/lib/time.js";
import { sweep as runSweep } from "../../../shared/usecases/sweep/sweep.js";
import { verifyWith } from "../../../shared/usecases/verify.js";
import type { Hosting, SeedCertificate } from "../../../sim/index.js";
import { type AppHarness, collectingLogger, startHarness } from "../../support/app.js";
import { fakeClock } from "../../support/clock.js";
import { timer } from "../../support/invoke.js";
import { type InMemoryTelemetry, inMemoryTelemetry, points } from "../../support/telemetry.js";
import { type Receiver, startReceiver } from "../../support/webhookReceiver.js";

/**
 * Verification runs end to end over real TLS: the simulator's hosting endpoint serves each App
 * Service certificate (signed by its throwaway CA), the run judges what it serves, and the
 * webhook receiver, the in-memory telemetry and the log show what a person would see.
 */

interface World {
  app: AppHarness;
  hosting: Hosting;
  clock: ReturnType<typeof fakeClock>;
  inventory: Inventory;
  receiver: Receiver;
  otel: InMemoryTelemetry;
}

let world: World | undefined;
afterEach(async () => {
  if (!world) return;
  expect(world.app.leaks(world.receiver.received.map((r) => r.body))).toEqual([]);
  await world.app.close();
  await world.receiver.close();
  await world.otel.close();
  world = undefined;
});

async function start(certificates: (t0: number) => SeedCertificate[]): Promise<World> {
  // Half a second past a whole one: X.509 keeps whole seconds.
  const clock = fakeClock(new Date(Math.floor(Date.now() / 1000) * 1000 + 500).toISOString());
  const t0 = clock.now().getTime();
  const app = await startHarness({
    now: clock.now,
    completionDelayMs: 30 * 60_000,
    certificates: certificates(t0),
    hosting: {},
  });
  const hosting = app.sim.hosting as Hosting;
  const receiver = await startReceiver();
  const otel = inMemoryTelemetry(clock.now);
  const inventory = memoryInventory();
  await app.configure(
    {
      CERTSCHED_VERIFY_CONNECT_TO: hosting.connectTo,
      CERTSCHED_WEBHOOK_URL: `${receiver.baseUrl}/hook?sig=${"s".repeat(40)}`,
      CERTSCHED_WEBHOOK_FORMAT: "json",
      CERTSCHED_HTTP_TIMEOUT: "5s",
    },
    { now: clock.now, inventory, ledger: memoryLedger(), telemetry: otel.telemetry },
  );
  app.addSecrets("s".repeat(40));
  world = { app, hosting, clock, inventory, receiver, otel };
  return world;
}

/** Certificates the inventory knows (as `certsched create` would leave them), not due yet. */
async function known(w: World, ...names: string[]): Promise<void> {
  await w.inventory.upsert(
    names.map((name) => ({
      certificateName: name,
      rootDomain: `${name}.verify.test`,
      target: APP_SERVICE,
      source: "created" as const,
      seenAt: w.clock.now(),
    })),
  );
}

type Message = { domain: string; from?: string; to: string; status: string; daysLeft?: number };
const messages = (w: World) => w.receiver.received.map((r) => r.json as Message);

describe("a verification over the simulator's hosting endpoint", () => {
  it("messages a change into a bad status and back to ok, once each; gauges days left as served", async () => {
    const w = await start((t0) => [
      {
        certificateName: "www",
        rootDomain: "www.verify.test",
        expiryDate: new Date(t0 + 5 * DAY_MS),
      },
      {
        certificateName: "shop",
        rootDomain: "shop.verify.test",
        expiryDate: new Date(t0 + 40 * DAY_MS),
      },
    ]);
    const { log, lines } = collectingLogger();
    const run = () =>
      verifyWith(getAccountPorts(), log, { trigger: "http", ca: [w.hosting.caPem] });
    await known(w, "shop");
    const first = await run();
    // First sight: nothing to compare with, and nothing bad: no message.
    expect(first.failed).toBe(false);
    expect(w.receiver.received).toEqual([]);

    w.hosting.inject("shop", "wrong-name");
    const broken = await run();
    expect(broken.failed).toBe(true);
    expect(broken.problems).toEqual([
      expect.stringMatching(/^shop \(shop\.verify\.test\): mismatch: /),
    ]);
    expect(messages(w)).toMatchObject([
      { status: "failed", domain: "shop.verify.test", from: "ok", to: "mismatch" },
    ]);
    // Still broken: not said again.
    await run();
    expect(w.receiver.received).toHaveLength(1);

    w.hosting.clearFaults("shop");
    await run();
    expect(messages(w)).toMatchObject([
      { to: "mismatch" },
      { status: "recovered", domain: "shop.verify.test", from: "mismatch", to: "ok", daysLeft: 39 },
    ]);

    // Days left as served: shop 39 (its 40 days, floored at the half second), read at observation.
    const gauge = points((await w.otel.collect()).get(INSTRUMENTS.servedDaysLeft));
    expect(gauge).toContainEqual({
      certificate: "shop",
      domain: "shop.verify.test",
      source: "tls",
      value: 39,
    });
    const summaries = lines.filter((l) => l.message.startsWith(VERIFICATION_SUMMARY_PREFIX));
    expect(
      summaries.map((l) => JSON.parse(l.message.slice(VERIFICATION_SUMMARY_PREFIX.length)).failed),
    ).toEqual(expect.arrayContaining([true, false]));
  });

  it("sweep → pending → not-landed when the endpoint keeps the old certificate; ok once it is installed", async () => {
    const w = await start((t0) => [
      {
        certificateName: "www",
        rootDomain: "www.verify.test",
        expiryDate: new Date(t0 + 5 * DAY_MS),
      },
    ]);
    w.hosting.inject("www", "keep-old-certificate");
    const { log, lines } = collectingLogger();
    const sweep = () => runSweep(getAccountPorts(), log, { verifyCa: [w.hosting.caPem] });

    const renewed = await sweep();
    expect(renewed.counts["renewal-scheduled"]).toBe(1);
    // Its own renewal is too fresh for the sweep to look at.
    expect(renewed.verification).toBeUndefined();

    // Within the window: pending, not a failure, no message.
    w.clock.advance(HOUR_MS);
    const within = await verifyWith(getAccountPorts(), log, {
      trigger: "timer",
      ca: [w.hosting.caPem],
    });
    expect(within.results.map((r) => r.status)).toEqual(["pending"]);
    expect(within.failed).toBe(false);
    expect(w.receiver.received.filter((r) => (r.json as Message).to === "pending")).toEqual([]);

    // The window (2 h) has passed: the next sweep looks at it, and it has not landed.
    w.clock.advance(HOUR_MS + 60_000);
    const later = await sweep();
    expect(later.failed).toBe(false);
    expect(later.verification).toMatchObject({
      names: ["www"],
      failed: true,
      counts: { "not-landed": 1 },
      problems: [expect.stringMatching(/^www \(www\.verify\.test\): not-landed: /)],
    });
    const afterSweep = lines
      .filter((l) => l.message.startsWith(VERIFICATION_SUMMARY_PREFIX))
      .at(-1);
    expect(
      JSON.parse(afterSweep?.message.slice(VERIFICATION_SUMMARY_PREFIX.length) ?? ""),
    ).toMatchObject({
      scope: "after-sweep",
      failed: true,
      failing: [{ name: "www", domain: "www.verify.test", status: "not-landed" }],
    });
    expect(messages(w).filter((m) => m.to === "not-landed")).toHaveLength(1);

    // The binding is updated: the new certificate is served, the next sweep finds it ok and stops looking.
    w.hosting.clearFaults("www");
    const landed = await sweep();
    expect(landed.verification).toMatchObject({ names: ["www"], failed: false, counts: { ok: 1 } });
    expect(messages(w).at(-1)).toMatchObject({ status: "recovered", from: "not-landed", to: "ok" });
    const quiet = await sweep();
    expect(quiet.verification).toBeUndefined();
  });
});

describe("the verification timer over real TLS", () => {
  it("fails the run naming each certificate served by a CA Node does not trust", async () => {
    const w = await start((t0) => [
      {
        certificateName: "www",
        rootDomain: "www.verify.test",
        expiryDate: new Date(t0 + 50 * DAY_MS),
      },
      {
        certificateName: "api",
        rootDomain: "api.verify.test",
        expiryDate: new Date(t0 + 60 * DAY_MS),
      },
    ]);
    await known(w, "www", "api");
    // Both send the whole chain below the root (an intermediate), whose root Node does not
    // hold: untrusted. Served alone, the leaf's issuer would be nowhere: incomplete-chain.
    for (const name of ["www", "api"]) w.hosting.inject(name, "with-intermediate");

    const thrown = await verifyCertificates(timer(), w.app.context("verifyCertificates")).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(thrown).toBeInstanceOf(VerificationFailedError);
    const problems = (thrown as VerificationFailedError).problems;
    expect(problems).toEqual([
      expect.stringMatching(/^api \(api\.verify\.test\): untrusted: /),
      expect.stringMatching(/^www \(www\.verify\.test\): untrusted: /),
    ]);
    expect((thrown as VerificationFailedError).code).toBe("VERIFICATION_FAILED");
    const summary = w.app.logs.find((l) => l.message.startsWith(VERIFICATION_SUMMARY_PREFIX));
    expect(summary?.level).toBe("information");
    expect(
      JSON.parse(summary?.message.slice(VERIFICATION_SUMMARY_PREFIX.length) ?? ""),
    ).toMatchObject({
      trigger: "timer",
      scope: "inventory",
      failed: true,
      counts: { untrusted: 2 },
      failing: [
        { name: "api", status: "untrusted" },
        { name: "www", status: "untrusted" },
      ],
    });
    // One warning per certificate that needs a person, and one message each to the webhook.
    expect(
      w.app.logs.filter((l) => l.message.startsWith("certsched verification problem: ")),
    ).toHaveLength(2);
    expect(
      messages(w)
        .map((m) => [m.domain, m.to])
        .sort(),
    ).toEqual([
      ["api.verify.test", "untrusted"],
      ["www.verify.test", "untrusted"],
    ]);
  });
});
