import { TableClient } from "@azure/data-tables";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { renewDueCertificates } from "../../../../functions/renewDueCertificates.js";
import { testConnectivity } from "../../../../functions/testConnectivity.js";
import { HISTORY_TABLE, tableHistory } from "../../../../shared/adapters/storage/tableHistory.js";
import type { History, ServiceRequest } from "../../../../shared/core/ports/history.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import type { SweepSummary } from "../../../../shared/core/renewal/summary.js";
import { SweepFailedError } from "../../../../shared/lib/errors.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";
import type { SeedCertificate } from "../../../../sim/index.js";
import { type AppHarness, startHarness } from "../../../support/app.js";
import { type AzuriteHandle, startAzurite } from "../../../support/azurite.js";
import { cliAgainst, jsonOf } from "../../../support/cli.js";
import { ensureBuilt } from "../../../support/cliBuild.js";
import { httpRequest, timer } from "../../../support/invoke.js";

/**
 * The request budget over Azurite and the simulator: every request certsched
 * sends to the service is counted in the history, whoever sent it (a CLI run, an HTTP call, a
 * sweep, each retry); a sweep renews the most urgent first and, within CERTSCHED_SERVICE_QUOTA,
 * defers the rest by name and fails. This file runs its own Azurite: the counts are of the whole
 * history table, which no other test file may write to meanwhile.
 */

const WEEK_MS = 7 * DAY_MS;

let azurite: AzuriteHandle;
let history: History;
let app: AppHarness | undefined;

beforeAll(async () => {
  // Cases run the built CLI: a dist/ older than the sources would test the old code.
  await ensureBuilt();
  azurite = await startAzurite();
  history = tableHistory({ connectionString: azurite.connectionString });
}, 60_000);
afterAll(async () => {
  await azurite.stop();
});
beforeEach(async () => {
  // Every row of the history goes (the table is this file's alone): counts start from zero.
  await history.removeBefore(new Date(9_000_000_000_000));
});
afterEach(async () => {
  if (app) expect(app.leaks()).toEqual([]);
  await app?.close();
  app = undefined;
});

/** A harness on this file's Azurite, with the app's clock at `now`. */
async function appWith(
  certificates: SeedCertificate[],
  settings: Record<string, string> = {},
  now: () => Date = () => new Date(),
): Promise<AppHarness> {
  app = await startHarness({ certificates });
  await app.configure(
    { AzureWebJobsStorage: azurite.connectionString, ...settings },
    { ledger: memoryLedger(), now },
  );
  return app;
}

/** What reached the simulator that the budget counts: every service call, no token call. */
const serviceCalls = (h: AppHarness) => h.sim.requests.filter((r) => r.operation !== "token");

/** The names in the public renew requests that reached the simulator, in arrival order. */
const renewedOnTheWire = (h: AppHarness) =>
  h.sim
    .requestsFor("publicRenew")
    .map(
      (r) =>
        (JSON.parse(r.body) as { certificate: { certificateName: string } }).certificate
          .certificateName,
    );

/** The stored request rows, read past our own mappers. */
async function requestRows(): Promise<{ at: string; operation: string; trigger: string }[]> {
  const client = TableClient.fromConnectionString(azurite.connectionString, HISTORY_TABLE, {
    allowInsecureConnection: true,
  });
  type Row = { at: string; operation: string; trigger: string };
  const rows: Row[] = [];
  for await (const row of client.listEntities<Row>({
    queryOptions: { filter: "PartitionKey eq 'request'" },
  })) {
    rows.push({ at: row.at, operation: row.operation, trigger: row.trigger });
  }
  return rows;
}

/** `count` requests at `at`, as an earlier run would have left them. */
const earlier = (count: number, at: Date): ServiceRequest[] =>
  Array.from({ length: count }, () => ({ at, operation: "list", trigger: "timer" as const }));

/** The sweep's one summary line, as logged (summary.ts summaryLine). */
type SummaryLine = Pick<SweepSummary, "failed" | "counts" | "requests7d" | "quota"> & {
  readonly certificates: { readonly name: string; readonly outcome: string }[];
};

/** The timer's sweep; resolves with its summary line (logged) and what it threw, if anything. */
async function timerSweep(h: AppHarness): Promise<{ summary: SummaryLine; error: unknown }> {
  const from = h.logs.length;
  const error = await renewDueCertificates(timer(), h.context("renewDueCertificates")).then(
    () => undefined,
    (e: unknown) => e,
  );
  const line = h.logs
    .slice(from)
    .map((l) => l.message)
    .find((m) => m.startsWith("certsched sweep summary "));
  if (!line) throw new Error("no summary line");
  return { summary: JSON.parse(line.slice("certsched sweep summary ".length)), error };
}

const days = (n: number) => new Date(Date.now() + n * DAY_MS);
/** Listed in this order (not the urgency order), all due within the list's 20 days. */
const MIXED: SeedCertificate[] = [
  { certificateName: "c-later", expiryDate: days(10) },
  { certificateName: "a-soon", expiryDate: days(2) },
  { certificateName: "z-expired", expiryDate: days(-1) },
  { certificateName: "e-tie", expiryDate: days(5) },
  { certificateName: "d-tie", expiryDate: days(5) },
];

describe("requests are counted whoever sends them", () => {
  it("a CLI run and an HTTP call (with its retry) each count every attempt, under its trigger; status shows the total", async () => {
    const h = await appWith([{ certificateName: "a-soon", expiryDate: days(2) }]);
    h.sim.reset();
    const env = { AzureWebJobsStorage: azurite.connectionString };

    const cli = await cliAgainst(h.sim, ["test"], { env });
    expect(cli.code).toBe(0);
    h.sim.inject("test", { status: 503 });
    const reply = await h.call(testConnectivity, httpRequest({ path: "test" }));
    expect(reply.status).toBe(200);

    // One by the CLI, two by the HTTP call (the 503, then its retry): three on the wire.
    expect(serviceCalls(h)).toHaveLength(3);
    expect(await history.requestsSince(new Date(Date.now() - WEEK_MS))).toBe(3);
    const rows = await requestRows();
    expect(rows.map((r) => `${r.trigger} ${r.operation}`).sort()).toEqual([
      "cli test",
      "http test",
      "http test",
    ]);

    const status = await cliAgainst(h.sim, ["status", "--json"], { env });
    expect(status.code).toBe(0);
    // Its own list is counted before the count is read: four on the wire, four counted.
    expect(serviceCalls(h)).toHaveLength(4);
    expect(jsonOf(status).requests7d).toBe(4);
  });
});

describe("a sweep renews the most urgent first", () => {
  it("without a quota, one at a time: earliest expiry first, ties by name", async () => {
    const h = await appWith(MIXED, { CERTSCHED_RENEWAL_CONCURRENCY: "1" });

    const { summary, error } = await timerSweep(h);

    expect(error).toBeUndefined();
    expect(renewedOnTheWire(h)).toEqual(["z-expired", "a-soon", "d-tie", "e-tie", "c-later"]);
    // One list and five renewals, all counted: the summary's 7-day count.
    expect(summary.requests7d).toBe(6);
    expect(summary).not.toHaveProperty("quota");
  });

  it("with too small a quota: the most urgent within it, the others deferred by name, the run failed", async () => {
    const now = new Date();
    // Nothing used before; the list takes one of five: four left for five due certificates.
    const h = await appWith(MIXED, { CERTSCHED_SERVICE_QUOTA: "5/7d" }, () => now);

    const { summary, error } = await timerSweep(h);

    expect(renewedOnTheWire(h)).toEqual(["z-expired", "a-soon", "d-tie", "e-tie"]);
    expect(summary.failed).toBe(true);
    expect(summary.counts).toMatchObject({ due: 5, "renewal-scheduled": 4, deferred: 1 });
    expect(summary.quota).toEqual({ limit: "5/7d", used: 1, remaining: 4, warning: false });
    expect(summary.requests7d).toBe(5);
    expect(error).toBeInstanceOf(SweepFailedError);
    expect((error as SweepFailedError).problems).toEqual([
      "1 certificate(s) deferred (quota), the service's request budget (CERTSCHED_SERVICE_QUOTA) went to more urgent ones: c-later",
    ]);
    expect(h.logs.map((l) => l.message)).toContainEqual(
      expect.stringMatching(
        /^certsched certificate deferred: c-later .*: CERTSCHED_SERVICE_QUOTA 5\/7d left 4 request\(s\) for renewals \(1 used\), .* \[QuotaReached\]$/,
      ),
    );
    const events = await history.events({ since: new Date(now.getTime() - HOUR_MS) });
    expect(
      events.items.filter((e) => e.event === "deferred").map((e) => e.certificateName),
    ).toEqual(["c-later"]);
  });

  it("a quota exactly as large as what is due renews every one of them: nothing deferred, not failed", async () => {
    const now = new Date();
    // 6/7d: the list takes one, five left for exactly five due certificates.
    const h = await appWith(MIXED, { CERTSCHED_SERVICE_QUOTA: "6/7d" }, () => now);

    const { summary, error } = await timerSweep(h);

    expect(error).toBeUndefined();
    expect(renewedOnTheWire(h)).toEqual(["z-expired", "a-soon", "d-tie", "e-tie", "c-later"]);
    expect(summary.failed).toBe(false);
    expect(summary.counts).toMatchObject({ due: 5, "renewal-scheduled": 5, deferred: 0 });
    expect(summary.quota).toEqual({ limit: "6/7d", used: 1, remaining: 5, warning: false });
    expect(summary.requests7d).toBe(6);
  });

  it("a retried renewal spends the budget too: the next certificate is deferred, the quota never exceeded", async () => {
    const now = new Date();
    // 6/7d: the list takes one, five left for five due; the most urgent renewal is answered
    // 503 once and retried, so its two attempts leave three for the other four.
    const h = await appWith(
      MIXED,
      { CERTSCHED_SERVICE_QUOTA: "6/7d", CERTSCHED_RENEWAL_CONCURRENCY: "1" },
      () => now,
    );
    h.sim.inject("publicRenew", { status: 503, headers: { "retry-after": "0" }, times: 1 });

    const { summary, error } = await timerSweep(h);

    expect(serviceCalls(h)).toHaveLength(6);
    expect(summary.requests7d).toBe(6);
    expect(renewedOnTheWire(h)).toEqual(["z-expired", "z-expired", "a-soon", "d-tie", "e-tie"]);
    expect(summary.certificates.map((c) => `${c.name} ${c.outcome}`)).toEqual([
      "z-expired renewal-scheduled",
      "a-soon renewal-scheduled",
      "d-tie renewal-scheduled",
      "e-tie renewal-scheduled",
      "c-later deferred",
    ]);
    expect(error).toBeInstanceOf(SweepFailedError);
  });

  it("a quota already used up defers every due certificate and sends no renewal", async () => {
    const now = new Date();
    await history.recordRequests(earlier(4, new Date(now.getTime() - HOUR_MS)));
    const h = await appWith(MIXED.slice(0, 2), { CERTSCHED_SERVICE_QUOTA: "5/7d" }, () => now);

    const { summary, error } = await timerSweep(h);

    expect(renewedOnTheWire(h)).toEqual([]);
    expect(summary.certificates.map((c) => `${c.name} ${c.outcome}`)).toEqual([
      "a-soon deferred",
      "c-later deferred",
    ]);
    expect(summary.quota).toEqual({ limit: "5/7d", used: 5, remaining: 0, warning: true });
    expect(error).toBeInstanceOf(SweepFailedError);
  });
});

describe("the rolling window (injected clock)", () => {
  it("the 7-day count reads each request's time: one exactly one window old still counts; one a millisecond older does not", async () => {
    const now = new Date();
    const edge = new Date(now.getTime() - WEEK_MS);
    await history.recordRequests([
      ...earlier(1, edge),
      ...earlier(1, new Date(edge.getTime() - 1)),
    ]);
    expect(await history.requestsSince(edge)).toBe(1);
    expect(await history.requestsSince(new Date(edge.getTime() + 1))).toBe(0);
    expect(await history.requestsSince(new Date(edge.getTime() - 1))).toBe(2);
  });

  it("the quota's window is the storage's clock: rows written now count, whatever time their writer's clock gave them", async () => {
    const now = new Date();
    const edge = new Date(now.getTime() - WEEK_MS);
    // Written now by a host whose clock says a week ago (and a millisecond more).
    await history.recordRequests([
      ...earlier(1, edge),
      ...earlier(1, new Date(edge.getTime() - 1)),
    ]);

    // 3/7d: both rows and the sweep's list use all three; nothing left for two due.
    const h = await appWith(MIXED.slice(0, 2), { CERTSCHED_SERVICE_QUOTA: "3/7d" }, () => now);
    const { summary } = await timerSweep(h);

    expect(summary.quota).toMatchObject({ used: 3, remaining: 0 });
    expect(renewedOnTheWire(h)).toEqual([]);
    expect(summary.certificates.map((c) => `${c.name} ${c.outcome}`)).toEqual([
      "a-soon deferred",
      "c-later deferred",
    ]);
  });
});

describe("the 80 % warning", () => {
  it.each([
    { before: 7, used: 8, warning: true },
    { before: 6, used: 7, warning: false },
  ])("$used of 10 used: warning $warning", async ({ before, used, warning }) => {
    const now = new Date();
    await history.recordRequests(earlier(before, new Date(now.getTime() - DAY_MS)));
    const h = await appWith(MIXED.slice(1, 2), { CERTSCHED_SERVICE_QUOTA: "10/7d" }, () => now);

    const { summary, error } = await timerSweep(h);

    // Enough left for the one due: renewed, and the run is not failed for a warning.
    expect(error).toBeUndefined();
    expect(renewedOnTheWire(h)).toEqual(["a-soon"]);
    expect(summary.quota).toEqual({ limit: "10/7d", used, remaining: 10 - used, warning });
    const warned = h.logs.filter((l) => l.level === "warning" && /80 %/.test(l.message));
    expect(warned.map((l) => l.message)).toEqual(
      warning
        ? [
            `certsched: ${used} of the 10 requests CERTSCHED_SERVICE_QUOTA (10/7d) allows are used: 80 % or more of the service's request budget`,
          ]
        : [],
    );
  });
});

describe("the CLI's sweep report", () => {
  it("names the deferred certificates, shows the count and the budget, and exits 1", async () => {
    const h = await appWith(MIXED);
    const env = { AzureWebJobsStorage: azurite.connectionString, CERTSCHED_SERVICE_QUOTA: "3/7d" };

    const text = await cliAgainst(h.sim, ["sweep"], { env: { ...env, COLUMNS: "200" } });

    expect(text.code).toBe(1);
    expect(renewedOnTheWire(h)).toEqual(["z-expired", "a-soon"]);
    expect(text.stdout).toMatch(/^e-tie +.*deferred \(quota\)$/m);
    expect(text.stdout).toMatch(/^c-later +.*deferred \(quota\)$/m);
    expect(text.stdout).toContain(
      "Requests sent to the service in the last 7 days: 3; CERTSCHED_SERVICE_QUOTA 3/7d: 1 used when the renewals started, 2 left.",
    );
    expect(text.stdout).toContain(
      "3 certificate(s) deferred (quota), the service's request budget (CERTSCHED_SERVICE_QUOTA) went to more urgent ones: d-tie, e-tie, c-later",
    );

    // The same run again, as JSON: the budget is spent, so not even its list is sent (it
    // used to go out, the quota's fourth request); the failure names who spent it.
    const json = await cliAgainst(h.sim, ["sweep", "--json"], { env });
    expect(json.code).toBe(1);
    expect(serviceCalls(h)).toHaveLength(3);
    expect(jsonOf(json)).toMatchObject({ requests7d: 3, counts: { deferred: 0 } });
    expect(jsonOf<{ listError: string }>(json).listError).toBe(
      "request not sent: CERTSCHED_SERVICE_QUOTA 3/7d: 0 used by reads and tests, 3 by other runs and processes (their lists and renewals), 0 by this run, 0 left; the budget is spent",
    );
  });
});
