import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { memoryTransparencyStore } from "../../../shared/adapters/storage/memory/memoryTransparency.js";
import { createCertSpotterClient } from "../../../shared/adapters/transparency/certSpotterClient.js";
import { memoryHistory } from "../../../shared/core/ports/history.js";
import type { InventoryRecord } from "../../../shared/core/ports/inventory.js";
import type { NotifyOutcome } from "../../../shared/core/ports/notifier.js";
import type { TransparencyStore } from "../../../shared/core/ports/transparency.js";
import type { SeenIssuance } from "../../../shared/core/transparency/issuance.js";
import type { TransparencySettings } from "../../../shared/core/transparency/transparencySettings.js";
import type { Logger } from "../../../shared/lib/log.js";
import {
  type TransparencyPorts,
  watchTransparency,
} from "../../../shared/usecases/watchTransparency.js";
import type { CertSpotterFault } from "../../../sim/transparency/certSpotterFaults.js";
import {
  type CertSpotterSimulator,
  startCertSpotter,
} from "../../../sim/transparency/certSpotterServer.js";
import {
  asPrecertificate,
  type IssuanceSeed,
  issuanceFromCertificate,
  pubkeySha256,
  tbsSha256,
} from "../../../sim/transparency/issuances.js";
import { makeCa, makeLeaf } from "../../support/certificates.js";

const KEY = "ct-key-VALUE-0123456789abcdef";
const NOW = new Date("2026-12-02T10:00:00Z");
/** The watch's clock (the simulator's stays at NOW). */
let clock = NOW;
const DAY = 86_400_000;
const ca = makeCa("CT Test CA", new Date(NOW.getTime() - 10 * DAY));
const ours = makeLeaf(ca, {
  names: ["www.contoso.com", "contoso.com"],
  notBefore: new Date(NOW.getTime() - 2 * DAY),
  notAfter: new Date(NOW.getTime() + 88 * DAY),
});

let sim: CertSpotterSimulator;
beforeEach(async () => {
  clock = NOW;
  sim = await startCertSpotter({ apiKey: KEY, now: () => NOW });
});
afterEach(async () => {
  await sim.close();
});

/** A certificate nobody here asked for: its own key and TBS. */
function stray(names: string[], overrides: Partial<IssuanceSeed> = {}): IssuanceSeed {
  return issuanceFromCertificate(ours.cert, {
    tbsSha256: randomBytes(32).toString("hex"),
    pubkeySha256: randomBytes(32).toString("hex"),
    certSha256: randomBytes(32).toString("hex"),
    dnsNames: names,
    ...overrides,
  });
}

/** The certificate certsched has read: served for www.contoso.com, with its hashes. */
const servedRecord: InventoryRecord = {
  certificateName: "www-contoso-com",
  rootDomain: "contoso.com",
  sanNames: ["www.contoso.com"],
  source: "due-list",
  firstSeen: new Date(NOW.getTime() - 30 * DAY),
  lastSeen: NOW,
  lastVerification: {
    at: NOW,
    status: "ok",
    source: "tls",
    domain: "www.contoso.com",
    detail: "ok",
    tbsSha256: tbsSha256(ours.cert),
    pubkeySha256: pubkeySha256(ours.cert),
  },
};

interface World {
  readonly ports: TransparencyPorts;
  readonly messages: SeenIssuance[][];
  readonly lines: string[];
  readonly log: Logger;
  readonly store: TransparencyStore;
}

async function world(
  options: {
    store?: TransparencyStore;
    settings?: Partial<TransparencySettings>;
    webhook?: () => NotifyOutcome;
    records?: InventoryRecord[];
  } = {},
): Promise<World> {
  const records = options.records ?? [servedRecord];
  const inventory = { list: async () => ({ items: records, invalid: [] }) };
  const messages: SeenIssuance[][] = [];
  const lines: string[] = [];
  const log: Logger = {
    info: (m) => lines.push(m),
    warn: (m) => lines.push(m),
    error: (m) => lines.push(m),
  };
  const settings: TransparencySettings = {
    watch: true,
    url: sim.url,
    apiKey: KEY,
    apiKeySecretName: "certsched-ct-api-key",
    domains: [],
    hourlyAllowance: 100,
    completionWindowMs: 2 * DAY,
    timeoutMs: 5_000,
    ...options.settings,
  };
  const store = options.store ?? memoryTransparencyStore();
  const ports: TransparencyPorts = {
    account: "contoso",
    settings: { transparency: () => settings },
    now: () => clock,
    inventory,
    history: memoryHistory(),
    transparency: store,
    notifier: {
      notifyIssuances: async (issuances: readonly SeenIssuance[]) => {
        messages.push([...issuances]);
        return options.webhook?.() ?? "sent";
      },
    },
    secrets: { named: async () => KEY },
    openWatcher: (apiKey) =>
      createCertSpotterClient({ baseUrl: sim.url, apiKey, timeoutMs: 5_000, now: () => clock }),
  };
  return { ports, messages, lines, log, store };
}

const run = (w: World) => watchTransparency(w.ports, w.log, { trigger: "timer" });

describe("the Certificate Transparency watch", () => {
  it("ours (and its precertificate) are expected; one nobody asked for is unexpected: one event, one alert line, one message, once", async () => {
    const seed = issuanceFromCertificate(ours.cert);
    sim.add(asPrecertificate(seed), seed, stray(["pay.contoso.com"]));
    const w = await world();

    const first = await run(w);
    const again = await run(w);

    expect(first).toMatchObject({
      watched: true,
      names: 1,
      newIssuances: 3,
      messages: 1,
      failed: true,
    });
    expect(first.unexpected.map((s) => s.issuance.dnsNames)).toEqual([["pay.contoso.com"]]);
    const stored = (await w.store.list("contoso")).items;
    expect(stored.map((s) => [s.issuance.dnsNames[0], s.verdict.kind]).sort()).toEqual([
      ["pay.contoso.com", "unexpected"],
      ["www.contoso.com", "expected"],
      ["www.contoso.com", "expected"],
    ]);
    expect(stored.filter((s) => s.verdict.kind === "expected").map((s) => s.verdict)).toEqual([
      expect.objectContaining({ because: "tbs", certificateName: "www-contoso-com" }),
      expect.objectContaining({ because: "tbs", certificateName: "www-contoso-com" }),
    ]);
    expect(again).toMatchObject({ newIssuances: 0, messages: 0, failed: false });
    expect(again.unexpected).toEqual([]);
    expect(w.messages.flat().map((s) => s.issuance.dnsNames)).toEqual([["pay.contoso.com"]]);
    const alerts = w.lines.filter((l) => l.startsWith("certsched ct alert: unexpected issuance "));
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatch(/for "contoso\.com" of account "contoso": pay\.contoso\.com by /);
    const events = await w.ports.history.events({ since: new Date(0) });
    expect(events.items.map((e) => [e.event, e.certificateName])).toEqual([
      ["unexpected-issuance", "ct:contoso.com"],
    ]);
    // Paging: after the last id of the first run, never from the start again.
    const afters = sim.requests.map((r) => r.query.after?.[0] ?? "");
    const ids = sim.issuances().map((i) => i.id);
    expect(afters).toEqual(["", ids[2], ids[2]]);
    expect(sim.requests.every((r) => r.hadAuthorization)).toBe(true);
  });

  it("a restart in the middle of a page neither skips nor repeats an issuance", async () => {
    sim.setPageSize(2);
    sim.add(...["a", "b", "c", "d", "e"].map((n) => stray([`${n}.contoso.com`])));
    const store = memoryTransparencyStore();
    let crash = true;
    const crashing: TransparencyStore = {
      ...store,
      setCursor: async (...a) => {
        if (crash) {
          crash = false;
          throw new Error("the process died");
        }
        return store.setCursor(...a);
      },
    };
    const dying = await world({ store: crashing });
    await expect(run(dying)).rejects.toThrow("the process died");
    expect((await store.list("contoso")).items).toHaveLength(2);

    const restarted = await world({ store });
    const after = await run(restarted);

    const stored = (await store.list("contoso")).items;
    expect(stored.map((s) => s.issuance.dnsNames[0]).sort()).toEqual(
      ["a", "b", "c", "d", "e"].map((n) => `${n}.contoso.com`),
    );
    expect(after.newIssuances).toBe(3);
    expect(after.unexpected).toHaveLength(5);
    expect(
      restarted.messages
        .flat()
        .map((s) => s.issuance.id)
        .sort(),
    ).toEqual(
      sim
        .issuances()
        .map((i) => i.id)
        .sort(),
    );
  });

  it("a webhook that fails is tried again by the next run, without a second event", async () => {
    sim.add(stray(["pay.contoso.com"]));
    let outcome: NotifyOutcome = "failed";
    const w = await world({ webhook: () => outcome });
    const first = await run(w);
    outcome = "sent";
    const second = await run(w);
    const third = await run(w);

    expect(first.problems.join("\n")).toMatch(/webhook message about issuance \d+ failed/);
    expect([first.messages, second.messages, third.messages]).toEqual([0, 1, 0]);
    expect(w.messages).toHaveLength(2);
    const events = await w.ports.history.events({ since: new Date(0) });
    expect(events.items).toHaveLength(1);
  });

  it("an issuance in the completion window of certsched's renewal is pending: expected once it lands, unexpected once the window ends", async () => {
    const sent = new Date(NOW.getTime() - 3_600_000);
    const nb = new Date(NOW.getTime() - 1_800_000);
    sim.add(
      stray(["www.contoso.com"], { notBefore: nb }),
      stray(["www.contoso.com", "contoso.com"], { notBefore: nb }),
    );
    const w = await world();
    await w.ports.history.append([
      {
        at: sent,
        certificateName: "www-contoso-com",
        event: "renewal-scheduled",
        trigger: "timer",
        runId: "r1",
      },
    ]);
    const first = await run(w);
    expect(first).toMatchObject({ newIssuances: 2, pending: 2, messages: 0, failed: false });
    expect(first.unexpected).toEqual([]);

    // One second before the window ends: still pending, nothing said.
    clock = new Date(sent.getTime() + 2 * DAY - 1_000);
    expect(await run(w)).toMatchObject({ pending: 2, messages: 0, failed: false });
    // The window ends: both become unexpected, each said once.
    clock = new Date(sent.getTime() + 2 * DAY);
    const ended = await run(w);
    expect(ended).toMatchObject({ pending: 0, messages: 2, failed: true });
    expect(ended.unexpected.map((s) => s.verdict)).toEqual([
      expect.objectContaining({ kind: "unexpected", why: expect.stringMatching(/had not landed/) }),
      expect.objectContaining({ kind: "unexpected" }),
    ]);
    expect((await run(w)).messages).toBe(0);
  });

  it("a pending issuance whose renewal lands is expected, and nothing is said", async () => {
    const sent = new Date(NOW.getTime() - 3_600_000);
    sim.add(stray(["www.contoso.com"], { notBefore: new Date(NOW.getTime() - 1_800_000) }));
    const w = await world();
    await w.ports.history.append([
      {
        at: sent,
        certificateName: "www-contoso-com",
        event: "renewal-scheduled",
        trigger: "timer",
        runId: "r1",
      },
    ]);
    expect(await run(w)).toMatchObject({ pending: 1 });
    await w.ports.history.append([
      {
        at: new Date(NOW.getTime() - 60_000),
        certificateName: "www-contoso-com",
        event: "landed",
        trigger: "timer",
        runId: "v1",
      },
    ]);
    clock = new Date(NOW.getTime() + 3 * DAY);
    const landed = await run(w);
    expect(landed).toMatchObject({ pending: 0, messages: 0, failed: false });
    const [only] = (await w.store.list("contoso")).items;
    expect(only?.verdict).toMatchObject({
      kind: "expected",
      because: "request",
      certificateName: "www-contoso-com",
    });
    expect(w.messages).toEqual([]);
  });

  it("off unless CERTSCHED_CT_WATCH: nothing is asked", async () => {
    const w = await world({ settings: { watch: false } });
    expect(await run(w)).toMatchObject({ watched: false, requests: 0 });
    expect(sim.requests).toEqual([]);
  });

  it("a refused key stops every name, is said once, and pauses the watcher for an hour", async () => {
    sim.add(stray(["pay.contoso.com"]));
    const w = await world({
      settings: {
        apiKey: "revoked-key-0123456789",
        domains: [{ name: "fabrikam.com", subdomains: true, source: "setting" }],
      },
    });
    const refused = await run(w);
    const paused = await run(w);

    expect(refused).toMatchObject({ requests: 1, newIssuances: 0, failed: true });
    expect(refused.problems).toEqual([
      expect.stringMatching(/^contoso\.com: the log watcher refused the API key: /),
    ]);
    expect(paused).toMatchObject({ requests: 0, failed: true });
    expect(paused.problems).toEqual([
      expect.stringMatching(/not asked before 2026-12-02T11:00:00Z \(the API key was refused\)/),
    ]);
    expect(sim.requests).toHaveLength(1);
    expect(JSON.stringify([refused, paused, w.lines])).not.toContain("revoked-key-0123456789");
  });
});

describe("every bad answer is bounded, said once, and loses no issuance", () => {
  // The simulator makes up the issuances of some faults, with ids after those it holds: an
  // issuance held before such a fault is, as far as the watcher said, not there.
  const cases: [string, CertSpotterFault, RegExp][] = [
    ["a 100 MB body", { kind: "huge-body", megabytes: 100 }, /bad-answer|too large|bytes/i],
    ["100,000 issuances in one page", { kind: "huge-page", count: 100_000 }, /.*/],
    ["an issuance with 10,000 names", { kind: "many-names", count: 10_000 }, /.*/],
    ["names with control, bidi characters and HTML", { kind: "hostile-names" }, /.*/],
    ["dates in the year 9999 and before 1970", { kind: "extreme-dates" }, /.*/],
    ["ids that go backwards", { kind: "ids-backwards" }, /backwards|do not grow/],
    ["a page that repeats forever", { kind: "endless-paging" }, /repeat|backwards|do not grow/],
    ["a 200 with an HTML body", { kind: "html-body" }, /bad-answer/],
    [
      "a 429 with Retry-After: 999999999",
      { kind: "rate-limited", retryAfter: "999999999" },
      /rate-limited/,
    ],
    [
      "a redirect to another host",
      { kind: "redirect" },
      /redirected to elsewhere\.invalid \(not followed\)/,
    ],
    ["a 500", { kind: "server-error" }, /refused/],
    ["a connection reset", { kind: "reset" }, /unreachable/],
  ];

  const MADE_UP = new Set(["huge-page", "many-names", "hostile-names", "extreme-dates"]);

  it.each(cases)("%s", async (_what, fault, said) => {
    const [before] = sim.add(stray(["pay.contoso.com"]));
    const w = await world();
    sim.setFault(fault);
    const bad = await run(w);
    sim.setFault(undefined);
    const [later] = sim.add(stray(["shop.contoso.com"]));
    const cursor = await w.store.cursor("contoso", "contoso.com");
    clock = new Date(NOW.getTime() + DAY + 1_000);
    const good = await run(w);

    const shown = JSON.stringify([bad, good, w.lines, (await w.store.list("contoso")).items]);
    expect(shown).not.toContain(KEY);
    // Nothing raw reaches a line: no control or bidi character, and every stored name is bounded.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the point
    expect(w.lines.join("\n")).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202a-\u202e]/);
    if (bad.problems.length > 0) {
      expect(bad.problems.join("\n")).toMatch(said);
      expect(bad.problems.join("\n").length).toBeLessThan(5_000);
    }
    // The seeded issuance is stored once and announced once, whatever the fault did.
    const stored = (await w.store.list("contoso")).items;
    const ids = [later?.id, ...(MADE_UP.has(fault.kind) ? [] : [before?.id])];
    for (const id of ids) {
      expect(stored.filter((s) => s.issuance.id === id)).toHaveLength(1);
      expect(w.messages.flat().filter((s) => s.issuance.id === id)).toHaveLength(1);
    }
    for (const s of stored) expect(s.issuance.dnsNames.length).toBeLessThanOrEqual(100);
    // The cursor never went past an issuance not stored.
    if (cursor !== undefined) expect(stored.map((s) => s.issuance.id)).toContain(cursor);
  });
});
