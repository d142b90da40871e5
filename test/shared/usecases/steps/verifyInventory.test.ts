import { afterEach, describe, expect, inject, it } from "vitest";
import { tableHistory } from "../../../../shared/adapters/storage/tableHistory.js";
import { tableInventory } from "../../../../shared/adapters/storage/tableInventory.js";
import { tableLedger } from "../../../../shared/adapters/storage/tableLedger.js";
import { loadVerifySettings } from "../../../../shared/app/config/verifySettings.js";
import type { AccountPorts } from "../../../../shared/app/services.js";
import { APP_SERVICE, KEY_VAULT } from "../../../../shared/core/certificate/fields.js";
import { fromServiceRecord } from "../../../../shared/core/inventory/fromRecords.js";
import { type History, memoryHistory } from "../../../../shared/core/ports/history.js";
import {
  type Inventory,
  memoryInventory,
  noInventory,
} from "../../../../shared/core/ports/inventory.js";
import { type Ledger, memoryLedger, noLedger } from "../../../../shared/core/ports/ledger.js";
import {
  countInventoryStatuses,
  failsRun,
  type InventoryResult,
} from "../../../../shared/core/verification/inventoryResult.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";
import {
  type VerifyInventoryOptions,
  verifyInventory,
} from "../../../../shared/usecases/steps/verifyInventory.js";
import { sweep } from "../../../../shared/usecases/sweep/sweep.js";
import {
  type Hosting,
  type SeedCertificate,
  type Simulator,
  startSimulator,
} from "../../../../sim/index.js";
import { collectingLogger, leaksIn, runtimeFor, uniqueTableName } from "../../../support/app.js";
import { makeCa, makeLeaf } from "../../../support/certificates.js";
import { fakeClock } from "../../../support/clock.js";
import { type FakeKeyVault, startFakeKeyVault } from "../../../support/fakeKeyVault.js";
import { certificateWithUnreadableExpiry } from "../../../support/unreadableDates.js";

/**
 * The inventory verification run over real sockets: the simulator's hosting endpoint serves
 * each App Service certificate, the HTTPS fake vault holds the Key Vault one, the clock is the
 * test's (the simulator and the run read the same one).
 */

const WINDOW_MS = 2 * HOUR_MS;
const COMPLETION_MS = 30 * 60_000;

interface World {
  sim: Simulator;
  hosting: Hosting;
  runtime: AccountPorts;
  clock: ReturnType<typeof fakeClock>;
  inventory: Inventory;
  ledger: Ledger;
  history: History;
  lines: { level: string; message: string }[];
  vault?: FakeKeyVault;
  run(more?: Partial<VerifyInventoryOptions>): ReturnType<typeof verifyInventory>;
}

let world: World | undefined;
afterEach(async () => {
  await world?.runtime.close();
  await world?.sim.close();
  await world?.vault?.close();
  world = undefined;
});

async function start(
  certificates: (start: number) => SeedCertificate[],
  options: {
    env?: Record<string, string>;
    inventory?: Inventory;
    ledger?: Ledger;
    history?: History;
    vault?: boolean;
    unreachableAfter?: string;
  } = {},
): Promise<World> {
  // Half a second past a whole one: X.509 keeps whole seconds (see landed.test.ts).
  const clock = fakeClock(new Date(Math.floor(Date.now() / 1000) * 1000 + 500).toISOString());
  const t0 = clock.now().getTime();
  const sim = await startSimulator({
    now: clock.now,
    completionDelayMs: COMPLETION_MS,
    certificates: certificates(t0),
    hosting: {},
  });
  const hosting = sim.hosting as Hosting;
  const inventory = options.inventory ?? memoryInventory();
  const ledger = options.ledger ?? memoryLedger();
  const history = options.history ?? memoryHistory();
  const runtime = runtimeFor(sim, options.env ?? {}, {
    now: clock.now,
    inventory,
    ledger,
    history,
  });
  const vault = options.vault ? await startFakeKeyVault() : undefined;
  const settings = loadVerifySettings({
    CERTSCHED_VERIFY_CONNECT_TO: hosting.connectTo,
    CERTSCHED_HTTP_TIMEOUT: "5s",
    CERTSCHED_VERIFY_UNREACHABLE_AFTER: options.unreachableAfter ?? "24h",
  });
  const { log, lines } = collectingLogger();
  world = {
    sim,
    hosting,
    runtime,
    clock,
    inventory,
    ledger,
    history,
    lines,
    ...(vault ? { vault } : {}),
    run: (more = {}) =>
      verifyInventory(runtime, log, {
        trigger: "timer",
        settings,
        ca: [hosting.caPem],
        ...(vault
          ? {
              keyVault: {
                vaultUrl: () => vault.url,
                clientOptions: vault.certificateClientOptions,
              },
            }
          : {}),
        ...more,
      }),
  };
  return world;
}

/** The due list as the sweep would remember it. */
async function rememberDue(w: World): Promise<void> {
  const { certificates } = await w.runtime.client.listDue();
  await w.inventory.upsert(
    certificates.map((c) => fromServiceRecord(c, "due-list", w.clock.now())),
  );
}

const byDomain = (results: readonly InventoryResult[]) =>
  Object.fromEntries(results.map((r) => [r.domain, r]));

describe("verifyInventory: what to look at, and where", () => {
  it("App Service domains and watched endpoints over TLS, the Key Vault certificate in its vault, other targets unverifiable", async () => {
    const w = await start(
      (t0) => [
        {
          certificateName: "www",
          rootDomain: "www.inv.test",
          expiryDate: new Date(t0 + 10 * DAY_MS),
        },
        {
          certificateName: "kv-cert",
          rootDomain: "vault.inv.test",
          target: KEY_VAULT,
          keyVaultName: "contoso-kv",
          expiryDate: new Date(t0 + 12 * DAY_MS),
        },
        {
          certificateName: "dns-only",
          rootDomain: "dns.inv.test",
          target: "Cloud DNS",
          expiryDate: new Date(t0 + 5 * DAY_MS),
        },
        // Not due: only CERTSCHED_WATCH and CERTSCHED_WATCH_CERTIFICATES bring these in.
        {
          certificateName: "shop",
          rootDomain: "shop.inv.test",
          expiryDate: new Date(t0 + 60 * DAY_MS),
        },
        {
          certificateName: "blog",
          rootDomain: "blog.inv.test",
          expiryDate: new Date(t0 + 90 * DAY_MS),
        },
      ],
      {
        vault: true,
        env: {
          CERTSCHED_WATCH: "SHOP.inv.test, ,shop.inv.test:443",
          CERTSCHED_WATCH_CERTIFICATES: "blog",
        },
      },
    );
    const t0 = w.clock.now().getTime();
    const ca = makeCa("inventory vault CA");
    w.vault?.setCertificate(
      "kv-cert",
      makeLeaf(ca, {
        names: ["vault.inv.test"],
        notBefore: new Date(t0 - DAY_MS),
        notAfter: new Date(t0 + 40 * DAY_MS),
      }).cert,
    );
    await rememberDue(w);

    const v = await w.run();

    const r = byDomain(v.results);
    expect(Object.keys(r).sort()).toEqual(
      [
        "blog.inv.test",
        "contoso-kv/kv-cert",
        "dns.inv.test",
        "shop.inv.test",
        // The Key Vault certificate's rootDomain: probed too, and compared with the vault.
        "vault.inv.test",
        "www.inv.test",
      ].sort(),
    );
    // It serves the simulator's certificate, older than the one the test put in the vault a
    // moment ago: within CERTSCHED_SYNC_WINDOW, pending.
    expect(r["vault.inv.test"]).toMatchObject({
      certificateName: "kv-cert",
      source: "tls",
      status: "pending",
    });
    expect(r["vault.inv.test"]?.detail).toContain("but vault contoso-kv/kv-cert holds version");
    // 10 days left: expiring (not critical) whatever the service says.
    expect(r["www.inv.test"]).toMatchObject({
      certificateName: "www",
      source: "tls",
      status: "expiring",
      daysLeft: 9,
    });
    expect(r["contoso-kv/kv-cert"]).toMatchObject({
      certificateName: "kv-cert",
      source: "keyvault",
      status: "ok",
      daysLeft: 39,
    });
    expect(r["dns.inv.test"]).toMatchObject({
      certificateName: "dns-only",
      status: "unverifiable",
    });
    expect(r["dns.inv.test"]?.detail).toContain('target "Cloud DNS" has no endpoint or vault');
    // A watched endpoint has no certificate name; "SHOP.inv.test" and "shop.inv.test:443" are one
    // endpoint written two ways: one result (docs/contracts/verify.md: one result per domain).
    expect(r["shop.inv.test"]).toMatchObject({ status: "ok", daysLeft: 59 });
    expect(r["shop.inv.test"]?.certificateName).toBeUndefined();
    expect(r["blog.inv.test"]).toMatchObject({
      certificateName: "blog",
      status: "ok",
      daysLeft: 89,
    });
    expect(v.failed).toBe(false);
    expect(v.problems).toEqual([]);
    expect(v.counts).toEqual({ expiring: 1, ok: 3, pending: 1, unverifiable: 1 });
    // Get Certificate was asked once, for the watched name only; the inventory keeps what it said.
    expect(w.sim.requestsFor("get")).toHaveLength(1);
    expect(await w.inventory.get("blog")).toMatchObject({
      source: "get",
      rootDomain: "blog.inv.test",
      id: expect.any(Number),
    });
    expect((await w.inventory.get("watch:shop.inv.test"))?.lastVerification?.status).toBe("ok");
    expect((await w.inventory.get("dns-only"))?.lastVerification?.status).toBe("unverifiable");
    // A second run within the week does not ask the service again.
    await w.run();
    expect(w.sim.requestsFor("get")).toHaveLength(1);
    expect(leaksIn(w.sim, [JSON.stringify(v), ...w.lines.map((l) => l.message)])).toEqual([]);
  });

  it("with `names`, only those (nothing watched); an endpoint no longer watched is not checked", async () => {
    const w = await start(
      (t0) => [
        { certificateName: "a", rootDomain: "a.inv.test", expiryDate: new Date(t0 + 10 * DAY_MS) },
        { certificateName: "b", rootDomain: "b.inv.test", expiryDate: new Date(t0 + 10 * DAY_MS) },
      ],
      { env: { CERTSCHED_WATCH: "a.inv.test" } },
    );
    await rememberDue(w);
    // Watched once, under an older CERTSCHED_WATCH: the row stays, it is not checked.
    await w.inventory.upsert([
      {
        certificateName: "watch:old.inv.test",
        rootDomain: "old.inv.test",
        source: "watch",
        seenAt: w.clock.now(),
      },
    ]);
    const only = await w.run({ names: ["b"] });
    expect(only.results.map((r) => [r.certificateName, r.domain])).toEqual([["b", "b.inv.test"]]);
    expect(await w.inventory.get("watch:a.inv.test")).toBeUndefined();

    const all = await w.run();
    // a.inv.test is both a certificate's domain and watched: one result, the certificate's.
    expect(all.results.map((r) => [r.certificateName, r.domain])).toEqual([
      ["a", "a.inv.test"],
      ["b", "b.inv.test"],
    ]);
    expect((await w.inventory.get("watch:a.inv.test"))?.lastVerification?.status).toBe("expiring");
    // One domain, one change: the watched endpoint sharing a's domain reports none of its own.
    expect(all.changes.map((c) => [c.certificateName, c.domain, c.to])).toEqual([
      ["a", "a.inv.test", "expiring"],
    ]);
    expect((await w.inventory.get("watch:old.inv.test"))?.lastVerification).toBeUndefined();
  });
});

describe("verifyInventory: one certificate that breaks its check never stops the others", () => {
  it("a vault version whose expiry is not a time: that certificate is unreachable, the rest verified", async () => {
    const w = await start(
      (t0) => [
        {
          certificateName: "www",
          rootDomain: "www.inv.test",
          expiryDate: new Date(t0 + 10 * DAY_MS),
        },
        {
          certificateName: "kv-cert",
          rootDomain: "vault.inv.test",
          target: KEY_VAULT,
          keyVaultName: "contoso-kv",
          expiryDate: new Date(t0 + 10 * DAY_MS),
        },
      ],
      { vault: true },
    );
    w.vault?.setCertificate("kv-cert", certificateWithUnreadableExpiry("vault.inv.test").cert);
    await rememberDue(w);

    const v = await w.run();

    const r = byDomain(v.results);
    expect(r["www.inv.test"]).toMatchObject({ certificateName: "www", status: "expiring" });
    expect(r["contoso-kv/kv-cert"]).toMatchObject({
      certificateName: "kv-cert",
      source: "keyvault",
      status: "unreachable",
    });
    expect(r["contoso-kv/kv-cert"]).not.toHaveProperty("servedNotAfter");
    expect(r["contoso-kv/kv-cert"]?.detail).toMatch(
      /^vault contoso-kv holds a certificate kv-cert that cannot be read: its notAfter is not a valid time/,
    );
    expect((await w.inventory.get("kv-cert"))?.lastVerification?.status).toBe("unreachable");
  });
});

describe("verifyInventory: the unreachable grace (CERTSCHED_VERIFY_UNREACHABLE_AFTER)", () => {
  it("is kept from the first failed attempt, an error at exactly the grace, cleared by a reading", async () => {
    const w = await start((t0) => [
      {
        certificateName: "down",
        rootDomain: "down.inv.test",
        expiryDate: new Date(t0 + 19 * DAY_MS),
      },
    ]);
    await rememberDue(w);
    w.hosting.inject("down", "unreachable");
    const first = w.clock.now();

    const a = await w.run();
    expect(a.results[0]).toMatchObject({ status: "unreachable", pastGrace: false });
    expect(a.results[0]?.detail).toContain(`unreachable since ${first.toISOString()}`);
    expect(a.failed).toBe(false);
    expect((await w.inventory.get("down"))?.lastVerification?.unreachableSince).toEqual(first);

    w.clock.advance(24 * HOUR_MS - 1);
    const b = await w.run();
    expect(b.results[0]).toMatchObject({ status: "unreachable", pastGrace: false });
    expect(b.failed).toBe(false);
    expect(b.changes).toEqual([]);

    w.clock.advance(1);
    const c = await w.run();
    expect(c.results[0]).toMatchObject({ status: "unreachable", pastGrace: true });
    expect(c.failed).toBe(true);
    expect(c.problems).toEqual([
      expect.stringMatching(/^down \(down\.inv\.test\): unreachable past its grace: /),
    ]);
    expect((await w.inventory.get("down"))?.lastVerification?.unreachableSince).toEqual(first);

    w.hosting.clearFaults("down");
    const d = await w.run();
    expect(d.results[0]?.status).toBe("ok");
    expect((await w.inventory.get("down"))?.lastVerification?.unreachableSince).toBeUndefined();

    // Down again: the grace starts over.
    w.hosting.inject("down", "unreachable");
    w.clock.advance(HOUR_MS);
    const e = await w.run();
    expect(e.results[0]).toMatchObject({ status: "unreachable", pastGrace: false });
    expect((await w.inventory.get("down"))?.lastVerification?.unreachableSince).toEqual(
      w.clock.now(),
    );
  });

  it("with no record kept (no storage) there is no grace: unreachable fails at once", async () => {
    const w = await start(
      (t0) => [
        {
          certificateName: "down",
          rootDomain: "down.inv.test",
          expiryDate: new Date(t0 + 15 * DAY_MS),
        },
      ],
      { inventory: noInventory, ledger: noLedger },
    );
    w.hosting.inject("down", "unreachable");
    const { certificates } = await w.runtime.client.listDue();
    const v = await w.run({
      also: certificates.map((c) => fromServiceRecord(c, "due-list", w.clock.now())),
    });
    expect(v.results[0]).toMatchObject({
      certificateName: "down",
      status: "unreachable",
      pastGrace: true,
    });
    expect(v.failed).toBe(true);
  });

  it("a certificate name with control characters cannot forge a line: problems are escaped", async () => {
    const w = await start(
      (t0) => [
        {
          certificateName: "down",
          rootDomain: "down.inv.test",
          expiryDate: new Date(t0 + 15 * DAY_MS),
        },
      ],
      { inventory: noInventory, ledger: noLedger },
    );
    w.hosting.inject("down", "unreachable");
    const hostile = "evil\ncertsched sweep summary {}\u001b[2J\u202e";
    const v = await w.run({
      also: [
        {
          certificateName: hostile,
          rootDomain: "down.inv.test",
          target: APP_SERVICE,
          source: "due-list",
          seenAt: w.clock.now(),
        },
      ],
    });
    expect(v.failed).toBe(true);
    expect(v.problems).toHaveLength(1);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may pass.
    expect(v.problems[0]).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(v.problems[0]).toContain("evil\\u{0a}certsched sweep summary {}\\u{1b}[2J\\u{202e}");
  });

  it("a grace of 0 means none", async () => {
    const w = await start(
      (t0) => [
        {
          certificateName: "down",
          rootDomain: "down.inv.test",
          expiryDate: new Date(t0 + 15 * DAY_MS),
        },
      ],
      { unreachableAfter: "0s" },
    );
    await rememberDue(w);
    w.hosting.inject("down", "unreachable");
    expect((await w.run()).results[0]).toMatchObject({ status: "unreachable", pastGrace: true });
  });
});

describe("verifyInventory: the renewal window, from the ledger's accepted renewal", () => {
  it("sweep -> pending until the window -> not-landed at exactly the window; recorded in history as changes", async () => {
    const w = await start((t0) => [
      {
        certificateName: "stale",
        rootDomain: "stale.inv.test",
        expiryDate: new Date(t0 + 5 * DAY_MS),
      },
      {
        certificateName: "fresh",
        rootDomain: "fresh.inv.test",
        expiryDate: new Date(t0 + 6 * DAY_MS),
      },
    ]);
    w.hosting.inject("stale", "keep-old-certificate");
    const { log } = collectingLogger();
    const summary = await sweep(w.runtime, log, { trigger: "timer" });
    expect(summary.counts["renewal-scheduled"]).toBe(2);
    // The sweep remembered what it listed.
    expect((await w.inventory.list()).items.map((r) => r.certificateName)).toEqual([
      "fresh",
      "stale",
    ]);
    const acceptedAt = w.clock.now().getTime();

    const pending = await w.run();
    expect(pending.results.map((r) => r.status)).toEqual(["pending", "pending"]);
    expect(pending.failed).toBe(false);
    expect(pending.changes.map((c) => [c.certificateName, c.from, c.to])).toEqual([
      ["fresh", undefined, "pending"],
      ["stale", undefined, "pending"],
    ]);

    w.clock.set(new Date(acceptedAt + WINDOW_MS - 1));
    const still = await w.run();
    expect(byDomain(still.results)["stale.inv.test"]?.status).toBe("pending");
    // The service completed fresh's renewal after 30 minutes; its endpoint serves the new one.
    expect(byDomain(still.results)["fresh.inv.test"]?.status).toBe("ok");

    w.clock.set(new Date(acceptedAt + WINDOW_MS));
    const late = await w.run();
    const stale = byDomain(late.results)["stale.inv.test"];
    expect(stale).toMatchObject({ certificateName: "stale", status: "not-landed" });
    expect(late.failed).toBe(true);
    expect(failsRun(stale as InventoryResult)).toBe(true);
    expect(late.problems).toEqual([
      expect.stringMatching(/^stale \(stale\.inv\.test\): not-landed: renewal accepted at /),
    ]);
    expect(late.changes).toEqual([
      {
        certificateName: "stale",
        domain: "stale.inv.test",
        from: "pending",
        to: "not-landed",
        critical: false,
      },
    ]);

    const events = (await w.history.events({ since: new Date(0) })).items.filter(
      (e) => e.event === "verified" || e.event === "not-landed",
    );
    expect(events.map((e) => [e.certificateName, e.event, e.reason]).reverse()).toEqual([
      ["fresh", "verified", "pending"],
      ["stale", "verified", "pending"],
      ["fresh", "verified", "ok"],
      ["stale", "not-landed", "not-landed"],
    ]);
  });
});

describe("verifyInventory: storage that fails", () => {
  it("an inventory that cannot record results: the results stand, with a warning", async () => {
    const base = memoryInventory();
    const failing: Inventory = {
      ...base,
      recordVerification: async () => {
        throw new Error("inventory: cannot write table certschedinventory (503)");
      },
    };
    const w = await start(
      (t0) => [
        { certificateName: "a", rootDomain: "a.inv.test", expiryDate: new Date(t0 + 10 * DAY_MS) },
      ],
      { inventory: failing },
    );
    await rememberDue(w);
    const v = await w.run();
    expect(v.results[0]?.status).toBe("expiring");
    expect(
      w.lines.some(
        (l) =>
          l.level === "warn" &&
          l.message.includes("could not record the verification of a in the inventory"),
      ),
    ).toBe(true);
  });
});

describe("failsRun and countInventoryStatuses (docs/contracts/verify.md, exit 1)", () => {
  const r = (
    status: InventoryResult["status"],
    more: Partial<InventoryResult> = {},
  ): InventoryResult => ({
    domain: "d",
    source: "tls",
    status,
    detail: "",
    ...more,
  });
  it.each([
    [r("ok"), false],
    [r("pending"), false],
    [r("unverifiable"), false],
    [r("expiring"), false],
    [r("expiring", { critical: true }), true],
    [r("unreachable", { pastGrace: false }), false],
    [r("unreachable", { pastGrace: true }), true],
    [r("not-landed"), true],
    [r("expired"), true],
    [r("mismatch"), true],
    [r("untrusted"), true],
  ])("%o fails the run: %s", (result, fails) => {
    expect(failsRun(result)).toBe(fails);
  });
  it("counts in the contract's order, unverifiable last, zero counts left out", () => {
    expect(
      Object.entries(
        countInventoryStatuses([r("unverifiable"), r("ok"), r("unreachable"), r("ok")]),
      ),
    ).toEqual([
      ["unreachable", 1],
      ["ok", 2],
      ["unverifiable", 1],
    ]);
  });
});

describe("verifyInventory: names longer than a Table storage key", () => {
  // A key holds 512 characters (1 KiB of UTF-16); a name escaped for a key grows up to 9 times.
  const LONG = `long-${"n".repeat(1_995)}`;
  const CJK = "証明書".repeat(50);

  it("a 2,000-character name and a 150-CJK-character name are inventoried, verified, and in the history and the ledger", async () => {
    const connectionString = inject("azuriteTableConnectionString");
    const stores = { connectionString, timeoutMs: 10_000 };
    const inventory = tableInventory({ ...stores, tableName: uniqueTableName("inv") });
    const history = tableHistory({ ...stores, tableName: uniqueTableName("hist") });
    const ledger = tableLedger({ ...stores, tableName: uniqueTableName("led") });
    const w = await start(
      (t0) => [
        {
          certificateName: LONG,
          rootDomain: "long.inv.test",
          expiryDate: new Date(t0 + 5 * DAY_MS),
        },
        { certificateName: CJK, rootDomain: "cjk.inv.test", expiryDate: new Date(t0 + 6 * DAY_MS) },
      ],
      { inventory, ledger, history },
    );
    const { log, lines } = collectingLogger();

    const summary = await sweep(w.runtime, log, { trigger: "timer" });
    // A minute later: the history reads newest first.
    w.clock.set(new Date(w.clock.now().getTime() + 60_000));
    const verified = await w.run();

    expect(summary.counts["renewal-scheduled"]).toBe(2);
    expect(lines.filter((l) => l.level !== "info")).toEqual([]);
    expect(w.lines.filter((l) => l.level !== "info")).toEqual([]);
    expect(verified.results.map((r) => [r.certificateName, r.status])).toEqual([
      [LONG, "pending"],
      [CJK, "pending"],
    ]);
    const { items, invalid } = await inventory.list();
    expect(invalid).toEqual([]);
    expect(items.map((r) => [r.certificateName, r.lastVerification?.status])).toEqual([
      [LONG, "pending"],
      [CJK, "pending"],
    ]);
    for (const name of [LONG, CJK]) {
      expect((await inventory.get(name))?.certificateName).toBe(name);
      const events = await history.events({ certificateName: name, since: new Date(0) });
      expect(events.invalid).toEqual([]);
      expect(events.items.map((e) => [e.certificateName, e.event])).toEqual([
        [name, "verified"],
        [name, "renewal-scheduled"],
      ]);
      const id = w.sim.certificates().find((c) => c.certificateName === name)?.id ?? 0;
      expect((await ledger.read(id))?.record).toMatchObject({
        certificateName: name,
        outcome: "renewal-scheduled",
      });
    }
  });
});

describe("verifyInventory: a result that cannot be stored", () => {
  it("names the certificate whose verification was not recorded, not a count", async () => {
    const memory = memoryInventory();
    // A storage account that refuses one row (as a real one refuses a row it cannot hold).
    const inventory: Inventory = {
      ...memory,
      kind: "table",
      recordVerification: async (name, verification) => {
        if (name === "cert-b")
          throw new Error("inventory: cannot write table certschedinventory (400)");
        await memory.recordVerification(name, verification);
      },
    };
    const w = await start(
      (t0) =>
        ["cert-a", "cert-b", "cert-c"].map((certificateName, i) => ({
          certificateName,
          rootDomain: `${certificateName}.inv.test`,
          expiryDate: new Date(t0 + (5 + i) * DAY_MS),
        })),
      { inventory },
    );
    await rememberDue(w);

    await w.run();

    expect(w.lines.filter((l) => l.level === "warn").map((l) => l.message)).toEqual([
      expect.stringMatching(
        /^certsched could not record the verification of cert-b in the inventory .*\(400\)$/,
      ),
    ]);
    const stored = (await memory.list()).items.map((r) => [
      r.certificateName,
      r.lastVerification !== undefined,
    ]);
    expect(stored).toEqual([
      ["cert-a", true],
      ["cert-b", false],
      ["cert-c", true],
    ]);
  });
});
