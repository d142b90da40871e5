import { afterEach, describe, expect, inject, it } from "vitest";
import { tableHistory } from "../../../../shared/adapters/storage/tableHistory.js";
import { tableInventory } from "../../../../shared/adapters/storage/tableInventory.js";
import { tableLedger } from "../../../../shared/adapters/storage/tableLedger.js";
import { loadVerifySettings } from "../../../../shared/app/config/verifySettings.js";
import type { AccountPorts } from "../../../../shared/app/services.js";
import type { CertificateEvent } from "../../../../shared/core/history/events.js";
import { fromServiceRecord } from "../../../../shared/core/inventory/fromRecords.js";
import { type History, memoryHistory } from "../../../../shared/core/ports/history.js";
import { type Inventory, memoryInventory } from "../../../../shared/core/ports/inventory.js";
import { type Ledger, memoryLedger } from "../../../../shared/core/ports/ledger.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";
import { verifyInventory } from "../../../../shared/usecases/steps/verifyInventory.js";
import { sweep } from "../../../../shared/usecases/sweep/sweep.js";
import {
  type Hosting,
  type HostingFault,
  type Simulator,
  sandboxSettings,
  startSimulator,
} from "../../../../sim/index.js";
import { collectingLogger, leaksIn, runtimeFor, uniqueTableName } from "../../../support/app.js";
import { fakeClock } from "../../../support/clock.js";

/**
 * The receipt of a renewal, end to end over real sockets: a verification reads what the simulator's
 * hosting endpoint serves, the sweep renews through the simulator (its `renewal-scheduled` event
 * carries what was served before), later verifications judge by fingerprint and record one `landed`
 * event with before and after.
 */

const WINDOW_MS = 2 * HOUR_MS;
const COMPLETION_MS = 30 * 60_000;
const MINUTE = 60_000;

interface World {
  sim: Simulator;
  hosting: Hosting;
  runtime: AccountPorts;
  clock: ReturnType<typeof fakeClock>;
  inventory: Inventory;
  history: History;
  lines: { level: string; message: string }[];
  run(): ReturnType<typeof verifyInventory>;
  sweep(): ReturnType<typeof sweep>;
  later(ms: number): void;
  events(): Promise<CertificateEvent[]>;
}

let world: World | undefined;
afterEach(async () => {
  await world?.runtime.close();
  await world?.sim.close();
  world = undefined;
});

async function start(
  options: {
    faults?: Record<string, HostingFault>;
    stores?: { inventory: Inventory; history: History; ledger: Ledger };
    /** A Key Vault certificate instead, read from the simulator's vault. */
    vault?: boolean;
  } = {},
): Promise<World> {
  // Half a second past a whole one: X.509 keeps whole seconds (see verifyInventory.landed.test.ts).
  const clock = fakeClock(new Date(Math.floor(Date.now() / 1000) * 1000 + 500).toISOString());
  const t0 = clock.now().getTime();
  const sim = await startSimulator({
    now: clock.now,
    completionDelayMs: COMPLETION_MS,
    certificates: [
      {
        certificateName: "www",
        rootDomain: "www.rcpt.test",
        expiryDate: new Date(t0 + 5 * DAY_MS),
        ...(options.vault ? { target: "Cloud Key Vault + DNS", keyVaultName: "kv-rcpt" } : {}),
      },
    ],
    hosting: { faults: options.faults ?? {} },
  });
  const hosting = sim.hosting as Hosting;
  const inventory = options.stores?.inventory ?? memoryInventory();
  const history = options.stores?.history ?? memoryHistory();
  const ledger = options.stores?.ledger ?? memoryLedger();
  const runtime = runtimeFor(sim, {}, { now: clock.now, inventory, ledger, history });
  const settings = loadVerifySettings({
    CERTSCHED_VERIFY_CONNECT_TO: options.vault
      ? (sandboxSettings(sim).CERTSCHED_VERIFY_CONNECT_TO as string)
      : hosting.connectTo,
    CERTSCHED_HTTP_TIMEOUT: "5s",
  });
  const { log, lines } = collectingLogger();
  const { certificates } = await runtime.client.listDue();
  await inventory.upsert(certificates.map((c) => fromServiceRecord(c, "due-list", clock.now())));
  world = {
    sim,
    hosting,
    runtime,
    clock,
    inventory,
    history,
    lines,
    run: () =>
      verifyInventory(runtime, log, {
        trigger: "timer",
        settings,
        ca: [hosting.caPem],
        keyVault: { clientOptions: { tlsOptions: { ca: hosting.caPem } } },
      }),
    sweep: () => sweep(runtime, log, { trigger: "timer" }),
    later: (ms) => clock.set(new Date(clock.now().getTime() + ms)),
    events: async () => {
      const read = await history.events({ certificateName: "www", since: new Date(0) });
      expect(read.invalid).toEqual([]);
      return [...read.items].reverse();
    },
  };
  return world;
}

const HEX64 = /^[0-9A-F]{64}$/;
const short = (hex: string) => `${hex.slice(0, 16)}…`;
const whole = (d: Date) => d.toISOString().replace(/\.000Z$/, "Z");

describe("receipts: before and after every renewal, through the simulator", () => {
  it("renewal-scheduled carries what was served; one landed event with both fingerprints once the new certificate is served (Table storage)", async () => {
    const connectionString = inject("azuriteTableConnectionString");
    const stores = { connectionString, timeoutMs: 10_000 };
    const w = await start({
      stores: {
        inventory: tableInventory({ ...stores, tableName: uniqueTableName("inv") }),
        history: tableHistory({ ...stores, tableName: uniqueTableName("hist") }),
        ledger: tableLedger({ ...stores, tableName: uniqueTableName("led") }),
      },
    });

    const first = await w.run();
    const old = (await w.inventory.get("www"))?.lastVerification;
    w.later(MINUTE);
    const summary = await w.sweep();
    w.later(MINUTE);
    const pending = await w.run();
    w.later(COMPLETION_MS);
    const landed = await w.run();
    w.later(HOUR_MS);
    const again = await w.run();

    expect(first.results[0]?.status).toBe("expiring");
    expect(summary.counts["renewal-scheduled"]).toBe(1);
    expect(pending.results[0]?.status).toBe("pending");
    expect(landed.results[0]?.status).toBe("ok");
    expect(again.results[0]?.status).toBe("ok");
    // What the first reading kept, read back from Table storage.
    expect(old?.thumbprint).toMatch(HEX64);
    expect(old?.serial).toMatch(/^[0-9A-F]+$/);
    expect(old?.notBefore).toBeInstanceOf(Date);
    const events = await w.events();
    expect(events.map((e) => [e.event, e.reason])).toEqual([
      ["verified", "expiring"],
      ["renewal-scheduled", "NewRenewal"],
      ["verified", "pending"],
      ["verified", "ok"],
      ["landed", "ok"],
    ]);
    const scheduled = events[1] as CertificateEvent;
    const before = {
      thumbprint: old?.thumbprint,
      serial: old?.serial,
      issuer: old?.issuer,
      notBefore: old?.notBefore,
      notAfter: old?.servedNotAfter,
      // The CT hashes of the certificate served before: a receipt is a certificate certsched knows.
      pubkeySha256: old?.pubkeySha256,
      tbsSha256: old?.tbsSha256,
    };
    expect(old?.pubkeySha256).toMatch(/^[0-9a-f]{64}$/);
    expect(old?.tbsSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(scheduled.before).toEqual(before);
    const land = events[4] as CertificateEvent;
    expect(land.before).toEqual(before);
    const after = land.after;
    expect(after?.thumbprint).toMatch(HEX64);
    expect(after?.thumbprint).not.toBe(old?.thumbprint);
    expect(after?.tbsSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(after?.tbsSha256).not.toBe(old?.tbsSha256);
    expect(after?.notAfter?.toISOString()).toBe(landed.results[0]?.servedNotAfter);
    expect(after?.issuer).toContain("O=certsched simulator");
    expect(land.detail).toBe(
      `the served certificate changed from SHA-256 ${short(old?.thumbprint ?? "")} (serial ${short(old?.serial ?? "")}, expires ${whole(old?.servedNotAfter as Date)}) to SHA-256 ${short(after?.thumbprint ?? "")} (serial ${short(after?.serial ?? "")}, expires ${whole(after?.notAfter as Date)}) at ${whole(land.at)}`.replace(
        /serial ([0-9A-F]{1,16})…/g,
        (m, hex: string) => (hex.length < 16 ? `serial ${hex}` : m),
      ),
    );
    // The receipt rides on the row: closed, with when it landed.
    const receipt = (await w.inventory.get("www"))?.lastVerification?.receipt;
    expect(receipt).toEqual({
      acceptedAt: expect.any(Date),
      before,
      after,
      landedAt: land.at,
    });
    expect(leaksIn(w.sim, [JSON.stringify(events), ...w.lines.map((l) => l.message)])).toEqual([]);
  });

  it("keep-old-certificate: no landed event; pending until the window, then not-landed by fingerprint", async () => {
    const w = await start({ faults: { www: "keep-old-certificate" } });

    await w.run();
    const old = (await w.inventory.get("www"))?.lastVerification;
    w.later(MINUTE);
    await w.sweep();
    const acceptedAt = w.clock.now().getTime();
    w.later(COMPLETION_MS);
    const completed = await w.run();
    w.clock.set(new Date(acceptedAt + WINDOW_MS - 1));
    const lastPending = await w.run();
    w.clock.set(new Date(acceptedAt + WINDOW_MS));
    const late = await w.run();

    expect(w.sim.certificates()[0]?.expiryDate.getTime()).toBeGreaterThan(acceptedAt + 80 * DAY_MS);
    expect(completed.results[0]?.status).toBe("pending");
    expect(lastPending.results[0]?.status).toBe("pending");
    expect(late.results[0]?.status).toBe("not-landed");
    expect(late.results[0]?.detail).toBe(
      `renewal accepted at ${new Date(acceptedAt).toISOString()}, more than 2 h ago (CERTSCHED_VERIFY_WINDOW), but the certificate served is still the one from before the renewal (SHA-256 ${short(old?.thumbprint ?? "")}, expires ${whole(old?.servedNotAfter as Date)})`,
    );
    const events = await w.events();
    expect(events.map((e) => e.event)).toEqual([
      "verified",
      "renewal-scheduled",
      "verified",
      "not-landed",
    ]);
    const receipt = (await w.inventory.get("www"))?.lastVerification?.receipt;
    expect(receipt?.before?.thumbprint).toBe(old?.thumbprint);
    expect(receipt?.after).toBeUndefined();
    expect(receipt?.landedAt).toBeUndefined();
  });

  it("a re-issued certificate with the same notAfter but a new fingerprint is a landing, not pending", async () => {
    const w = await start({ faults: { www: "keep-old-certificate" } });

    await w.run();
    const old = (await w.inventory.get("www"))?.lastVerification;
    w.later(MINUTE);
    await w.sweep();
    w.later(MINUTE);
    const held = await w.run();
    // Same binding, same dates, issued again (by the intermediate CA): another certificate.
    w.hosting.inject("www", "with-intermediate");
    w.later(MINUTE);
    const reissued = await w.run();

    expect(held.results[0]?.status).toBe("pending");
    expect(reissued.results[0]?.status).toBe("expiring");
    expect(reissued.results[0]?.servedNotAfter).toBe(old?.servedNotAfter?.toISOString());
    expect(reissued.results[0]?.thumbprint).not.toBe(old?.thumbprint);
    const landed = (await w.events()).filter((e) => e.event === "landed");
    expect(landed).toHaveLength(1);
    expect(landed[0]?.before?.thumbprint).toBe(old?.thumbprint);
    expect(landed[0]?.after?.thumbprint).toBe(reissued.results[0]?.thumbprint);
  });

  it("with no reading before the renewal, the date rule decides and no landed event is recorded", async () => {
    const w = await start();

    await w.sweep();
    w.later(MINUTE);
    const pending = await w.run();
    w.later(COMPLETION_MS);
    const ok = await w.run();

    expect(pending.results[0]?.status).toBe("pending");
    expect(pending.results[0]?.detail).toContain("no later than before the renewal");
    expect(ok.results[0]?.status).toBe("ok");
    const events = await w.events();
    expect(events.map((e) => e.event)).toEqual(["renewal-scheduled", "verified", "verified"]);
    expect(events[0]?.before).toBeUndefined();
    expect((await w.inventory.get("www"))?.lastVerification?.receipt).toEqual({
      acceptedAt: expect.any(Date),
    });
  });

  it("Key Vault: the vault's current version, by fingerprint, with its version id before and after", async () => {
    const w = await start({ vault: true });

    await w.run();
    const old = (await w.inventory.get("www"))?.lastVerification;
    w.later(MINUTE);
    await w.sweep();
    w.later(MINUTE);
    const pending = await w.run();
    w.later(COMPLETION_MS);
    const landed = await w.run();

    expect(old?.source).toBe("keyvault");
    expect(old?.version).toEqual(expect.any(String));
    expect(pending.results[0]?.status).toBe("pending");
    expect(landed.results[0]?.status).toBe("ok");
    const land = (await w.events()).find((e) => e.event === "landed");
    expect(land?.before?.version).toBe(old?.version);
    expect(land?.after?.version).toEqual(expect.any(String));
    expect(land?.after?.version).not.toBe(old?.version);
    expect(
      land?.detail?.startsWith(
        `the vault's current version changed from SHA-256 ${short(old?.thumbprint ?? "")} (version ${old?.version}, `,
      ),
    ).toBe(true);
  });

  it("Key Vault keep-old-version: not-landed after the window, the old version named by fingerprint", async () => {
    const w = await start({ vault: true, faults: { www: "keep-old-version" } });

    await w.run();
    const old = (await w.inventory.get("www"))?.lastVerification;
    w.later(MINUTE);
    await w.sweep();
    const acceptedAt = w.clock.now().getTime();
    w.clock.set(new Date(acceptedAt + WINDOW_MS));
    const late = await w.run();

    expect(late.results[0]?.status).toBe("not-landed");
    expect(late.results[0]?.detail).toContain(
      `but the vault's current version is still the one from before the renewal (SHA-256 ${short(old?.thumbprint ?? "")}, expires `,
    );
    expect((await w.events()).map((e) => e.event)).not.toContain("landed");
  });
});
