import { randomUUID } from "node:crypto";
import { TableClient } from "@azure/data-tables";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CONCURRENCY_TABLE } from "../../../shared/adapters/storage/concurrencyTable.js";
import { loadSettings } from "../../../shared/app/config/settings.js";
import { createServices } from "../../../shared/app/services.js";
import { fixedConcurrency } from "../../../shared/core/ports/concurrency.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import { sweep } from "../../../shared/usecases/sweep/sweep.js";
import { type SimAccounts, startSimAccounts } from "../../support/accounts.js";
import { collectingLogger, leaksIn } from "../../support/app.js";

// Unique names: the concurrency table is one per storage account, shared by every test file.
const tag = randomUUID().slice(0, 8);
const BUSY = `busy-${tag}`;
const CALM = `calm-${tag}`;
let accounts: SimAccounts;

beforeAll(async () => {
  accounts = await startSimAccounts([BUSY, CALM], (name) => ({
    completionDelayMs: 30 * 60_000,
    latencyMs: 20,
    certificates: Array.from({ length: 24 }, (_, i) => ({
      certificateName: `www-${i}`,
      expiryDate: new Date(Date.now() + (3 + (i % 5)) * DAY_MS),
    })),
    // The busy account's service takes two requests at once; the calm one's any number.
    ...(name === BUSY ? { rateLimit: { capacity: 2, retryAfterSeconds: 0 } } : {}),
  }));
});
afterAll(() => accounts.close());

const env = () => ({
  ...accounts.env(),
  AzureWebJobsStorage: inject("azuriteTableConnectionString"),
  CERTSCHED_RENEWAL_CONCURRENCY: "8",
});

describe("adaptive concurrency per account, shared through storage", () => {
  it("backs off the busy account only, and a second process starts from the limit the first learned", async () => {
    const first = createServices(loadSettings(env()));
    const { log, lines } = collectingLogger();
    try {
      const busy = first.forAccount(BUSY);
      expect(busy.concurrency.kind).toBe("adaptive");
      const [busySweep, calmSweep] = await Promise.all([
        sweep(busy, log, { trigger: "timer" }),
        sweep(first.forAccount(CALM), log, { trigger: "timer" }),
      ]);
      // Throttled, and still every renewal went through, once.
      expect(busySweep.counts["renewal-scheduled"]).toBe(24);
      expect(busySweep.counts.failed).toBe(0);
      expect(calmSweep.counts["renewal-scheduled"]).toBe(24);
      expect(accounts.sim(BUSY).rateLimitStats()?.throttled).toBeGreaterThan(0);
      for (const c of accounts.sim(BUSY).certificates()) {
        expect(accounts.sim(BUSY).renewCallsFor(c.certificateName)).toBe(1);
      }
      expect(busy.concurrency.current()).toBeLessThan(8);
      expect(first.forAccount(CALM).concurrency.current()).toBe(8);
      expect(lines.filter((l) => /adaptive concurrency/.test(l.message))).toEqual([]);
    } finally {
      await first.close();
    }

    // The row is the busy account's alone: the calm one never changed, so never wrote.
    const table = TableClient.fromConnectionString(
      inject("azuriteTableConnectionString"),
      CONCURRENCY_TABLE,
      { allowInsecureConnection: true },
    );
    const row = await table.getEntity<{ limit: number; epoch: number }>("account", BUSY);
    expect(row.limit).toBeLessThan(8);
    expect(row.epoch).toBeGreaterThan(0);
    await expect(table.getEntity("account", CALM)).rejects.toMatchObject({ statusCode: 404 });

    // Another instance of the app: it reads the account's limit before its pool starts.
    const second = createServices(loadSettings(env()));
    try {
      const control = second.forAccount(BUSY).concurrency;
      expect(control.current()).toBe(8);
      await control.refresh();
      expect(control.current()).toBe(row.limit);
      expect(second.forAccount(CALM).concurrency.current()).toBe(8);
    } finally {
      await second.close();
    }
    for (const { sim } of accounts.accounts) {
      expect(
        leaksIn(
          sim,
          lines.map((l) => l.message),
        ),
      ).toEqual([]);
    }
  }, 120_000);

  it("lets Seams replace an account's concurrency, for every account or per account", () => {
    const all = createServices(loadSettings(env()), { concurrency: fixedConcurrency(3) });
    expect(all.forAccount(BUSY).concurrency.current()).toBe(3);
    expect(all.forAccount(CALM).concurrency.kind).toBe("fixed");
    const per = createServices(loadSettings(env()), {
      concurrency: (account) => fixedConcurrency(account === BUSY ? 1 : 5),
    });
    expect(per.forAccount(BUSY).concurrency.current()).toBe(1);
    expect(per.forAccount(CALM).concurrency.current()).toBe(5);
  });

  it("grows past the configured value up to CERTSCHED_RENEWAL_CONCURRENCY_MAX when set", () => {
    const services = createServices(
      loadSettings({ ...env(), CERTSCHED_RENEWAL_CONCURRENCY_MAX: "32" }),
    );
    const control = services.forAccount(CALM).concurrency;
    for (let i = 0; i < 8; i++) control.observe({ kind: "answered", latencyMs: 5, epoch: 0 });
    expect(control.current()).toBe(9);
  });
});
