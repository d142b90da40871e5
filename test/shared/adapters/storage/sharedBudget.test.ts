import { TableClient } from "@azure/data-tables";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cleanupHistory } from "../../../../functions/handlers/cleanupHistory.js";
import { getCertificate } from "../../../../functions/handlers/getCertificate.js";
import { listDueCertificates } from "../../../../functions/handlers/listDueCertificates.js";
import { renewCertificate } from "../../../../functions/handlers/renewCertificate.js";
import { testConnectivity } from "../../../../functions/handlers/testConnectivity.js";
import { renewDueCertificates } from "../../../../functions/renewDueCertificates.js";
import { sharedBudget } from "../../../../shared/adapters/storage/sharedBudget.js";
import { HISTORY_TABLE, tableHistory } from "../../../../shared/adapters/storage/tableHistory.js";
import { tableInventory } from "../../../../shared/adapters/storage/tableInventory.js";
import type { History } from "../../../../shared/core/ports/history.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import { QuotaExhaustedError } from "../../../../shared/core/quota/budgetRules.js";
import type { SweepSummary } from "../../../../shared/core/renewal/summary.js";
import { OPERATOR, READER } from "../../../../shared/edge/auth/roles.js";
import { SweepFailedError } from "../../../../shared/lib/errors.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import type { SeedCertificate } from "../../../../sim/index.js";
import { type AppHarness, closedPort, startHarness } from "../../../support/app.js";
import { type AzuriteHandle, startAzurite } from "../../../support/azurite.js";
import { cliAgainst, jsonOf } from "../../../support/cli.js";
import { ensureBuilt } from "../../../support/cliBuild.js";
import { httpRequest, timer } from "../../../support/invoke.js";
import { principalHeader } from "../../../support/principals.js";

/**
 * CERTSCHED_SERVICE_QUOTA is one budget shared by every process, reserved in storage before each
 * request and measured on the storage service's clock; renewals have first claim on it, reads get
 * only what due renewals will not need. Every case counts what reached the simulator (its own
 * request log), not what certsched says it sent. This file runs its own Azurite: the budget is the
 * whole history table's, which no other file may write meanwhile.
 */

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
  await history.removeBefore(new Date(9_000_000_000_000));
  // The inventory too: what it knows is what renewals need.
  const inventory = TableClient.fromConnectionString(
    azurite.connectionString,
    "certschedinventory",
    {
      allowInsecureConnection: true,
    },
  );
  try {
    for await (const row of inventory.listEntities()) {
      await inventory.deleteEntity(row.partitionKey ?? "", row.rowKey ?? "");
    }
  } catch {
    // No table yet: nothing to clear.
  }
});
afterEach(async () => {
  if (app) expect(app.leaks()).toEqual([]);
  await app?.close();
  app = undefined;
  delete process.env.WEBSITE_AUTH_ENABLED;
});

const days = (n: number) => new Date(Date.now() + n * DAY_MS);
/** Five certificates due, one a day over the next five days. */
const FIVE_DUE: SeedCertificate[] = [1, 2, 3, 4, 5].map((i) => ({
  certificateName: `due-${i}`,
  id: 9100 + i,
  expiryDate: days(i),
}));

/** A harness on this file's Azurite, behind Easy Auth, with the app's clock `now`. */
async function appWith(
  certificates: SeedCertificate[],
  settings: Record<string, string> = {},
  now: () => Date = () => new Date(),
): Promise<AppHarness> {
  app = await startHarness({ certificates });
  await app.configure(
    { AzureWebJobsStorage: azurite.connectionString, WEBSITE_AUTH_ENABLED: "True", ...settings },
    { ledger: memoryLedger(), now },
  );
  process.env.WEBSITE_AUTH_ENABLED = "True";
  return app;
}

/** What the inventory holds after a sweep listed `certificates` (the day before, say). */
async function inventoryKnows(certificates: readonly SeedCertificate[]): Promise<void> {
  const now = new Date();
  await tableInventory({ connectionString: azurite.connectionString }).upsert(
    certificates.map((c) => ({
      certificateName: c.certificateName,
      id: c.id,
      serviceExpiry: c.expiryDate,
      source: "due-list" as const,
      seenAt: now,
    })),
  );
}

const asReader = { "x-ms-client-principal": principalHeader({ roles: [READER] }) };
const read = (path: string, params: Record<string, string> = {}) =>
  httpRequest({ method: "GET", path, params, headers: asReader });

/** Every service call that reached the simulator (token calls are not the service's). */
const serviceCalls = (h: AppHarness) => h.sim.requests.filter((r) => r.operation !== "token");
const renewedOnTheWire = (h: AppHarness) =>
  h.sim
    .requestsFor("publicRenew")
    .map(
      (r) =>
        (JSON.parse(r.body) as { certificate: { certificateName: string } }).certificate
          .certificateName,
    );

type SummaryLine = Pick<SweepSummary, "failed" | "counts" | "quota"> & {
  readonly certificates: { readonly name: string; readonly outcome: string }[];
};

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

describe("a reader can never starve the renewals (10/7d, five due)", () => {
  it("a reader's due lists and connectivity tests stop where the renewals' need begins; the sweep then renews all five", async () => {
    const h = await appWith(FIVE_DUE, { CERTSCHED_SERVICE_QUOTA: "10/7d" });

    const replies = [];
    for (let i = 0; i < 8; i++) {
      replies.push(await h.call(listDueCertificates, read("certificates/due")));
      replies.push(await h.call(testConnectivity, read("connectivity")));
    }

    // The first due list teaches the inventory the five due: 1 list + 5 renewals are theirs,
    // so reads get 4 of 10, never more.
    expect(serviceCalls(h)).toHaveLength(4);
    expect(replies.filter((r) => r.status === 200)).toHaveLength(4);
    const refused = replies.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(12);
    for (const reply of refused) {
      expect(reply.status).toBe(429);
      expect(reply.headers["content-type"]).toBe("application/problem+json");
      expect(reply.body).toMatchObject({
        code: "QUOTA_EXHAUSTED",
        title: "The service's request budget is kept for renewals",
      });
      expect(Number(reply.headers["retry-after"])).toBeGreaterThan(0);
      expect(Number(reply.headers["retry-after"])).toBeLessThanOrEqual(7 * 86_400);
    }
    expect(JSON.stringify(refused[0]?.body)).toContain(
      "CERTSCHED_SERVICE_QUOTA 10/7d: 4 used by reads and tests",
    );
    expect(JSON.stringify(refused[0]?.body)).toContain(
      "the 6 request(s) due renewals need in the window are kept for them",
    );

    const { summary, error } = await timerSweep(h);

    expect(error).toBeUndefined();
    expect([...renewedOnTheWire(h)].sort()).toEqual(FIVE_DUE.map((c) => c.certificateName));
    expect(summary.counts).toMatchObject({ due: 5, "renewal-scheduled": 5, deferred: 0 });
    expect(serviceCalls(h)).toHaveLength(10);
  });

  it("20 sequential Get Certificate reads from a cold start: a due list first, then exactly what the renewals leave (3); the sweep renews all five", async () => {
    // Nothing listed yet (no sweep, no due list): the need of renewals is unknown until a list
    // is made, so the first read makes one (as a renewal's request) before any read spends.
    const h = await appWith(FIVE_DUE, { CERTSCHED_SERVICE_QUOTA: "10/7d" });

    const answers: string[] = [];
    for (let i = 0; i < 20; i++) {
      const reply = await h.call(getCertificate, read("certificates/due-1", { name: "due-1" }));
      expect(reply.status).toBe(200);
      answers.push((reply.body as { service: { answer: string } }).service.answer);
    }

    expect(h.sim.requestsFor("list")).toHaveLength(1);
    expect(h.sim.requestsFor("get")).toHaveLength(3);
    expect(serviceCalls(h)[0]?.operation).toBe("list");
    expect(answers.filter((a) => a === "found")).toHaveLength(3);
    expect(answers.filter((a) => a === "not-asked")).toHaveLength(17);

    const { summary, error } = await timerSweep(h);
    expect(error).toBeUndefined();
    expect(summary.counts).toMatchObject({ "renewal-scheduled": 5, deferred: 0 });
    expect(serviceCalls(h)).toHaveLength(10);
  });

  it("30 concurrent Get Certificate reads never take more than the renewals leave; the sweep renews all five", async () => {
    await inventoryKnows(FIVE_DUE);
    const h = await appWith(FIVE_DUE, { CERTSCHED_SERVICE_QUOTA: "10/7d" });

    const replies = await Promise.all(
      Array.from({ length: 30 }, () =>
        h.call(getCertificate, read("certificates/due-2", { name: "due-2" })),
      ),
    );

    expect(replies.every((r) => r.status === 200)).toBe(true);
    // Contenders at the edge may all back off (conservative: each counts after its own
    // insert, so 30 inserts before any count refuse all 30), never all go: at most 4.
    expect(h.sim.requestsFor("get").length).toBeLessThanOrEqual(4);

    const { summary } = await timerSweep(h);
    expect(summary.counts).toMatchObject({ "renewal-scheduled": 5, deferred: 0 });
    expect(serviceCalls(h).length).toBeLessThanOrEqual(10);
  });

  it("a flood of concurrent reads while the sweep runs cannot defer a renewal", async () => {
    await inventoryKnows(FIVE_DUE);
    const h = await appWith(FIVE_DUE, { CERTSCHED_SERVICE_QUOTA: "10/7d" });
    await h.call(getCertificate, read("certificates/due-3", { name: "due-3" }));

    const flood = Promise.all(
      Array.from({ length: 60 }, () =>
        h.call(getCertificate, read("certificates/due-3", { name: "due-3" })),
      ),
    );
    const [{ summary, error }, replies] = await Promise.all([timerSweep(h), flood]);

    expect(error).toBeUndefined();
    expect(summary.counts).toMatchObject({ "renewal-scheduled": 5, deferred: 0 });
    expect(replies.every((r) => r.status === 200)).toBe(true);
    expect(h.sim.requestsFor("get").length).toBeLessThanOrEqual(4);
    expect(serviceCalls(h).length).toBeLessThanOrEqual(10);
  });

  it("reads stop at exactly 80 % when nothing is due: the due list that shows it and 6 reads go, the 9th request does not", async () => {
    const h = await appWith([], { CERTSCHED_SERVICE_QUOTA: "10/7d" });

    const statuses = [];
    for (let i = 0; i < 10; i++) {
      statuses.push((await h.call(testConnectivity, read("connectivity"))).status);
    }

    // 8 of 10 requests: the due list that shows nothing is due (a 404, believed once a
    // connectivity test confirms the address, spec 4.3), then 6 reads.
    expect(serviceCalls(h).map((r) => r.operation)).toEqual([
      "list",
      ...Array.from({ length: 7 }, () => "test"),
    ]);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429, 429, 429]);
  });

  it("a read while no due list can be made is refused, saying the need of renewals is not known", async () => {
    const h = await appWith(FIVE_DUE, { CERTSCHED_SERVICE_QUOTA: "10/7d" });
    h.sim.inject("list", { status: 400, body: "refused", times: Number.POSITIVE_INFINITY });

    const reply = await h.call(testConnectivity, read("connectivity"));

    expect(reply.status).toBe(429);
    expect(JSON.stringify(reply.body)).toContain(
      "what due renewals need is not known (no due list could be read), so reads wait for one",
    );
    expect(h.sim.requestsFor("test")).toHaveLength(0);
  });

  it("a sweep deferred by reads says so: the cause names the reads, not more urgent renewals", async () => {
    // Nothing due while the reads run (the list they start with shows it), so they may take up
    // to 80 %; then five certificates come due before the sweep.
    const h = await appWith([], { CERTSCHED_SERVICE_QUOTA: "10/7d" });
    for (let i = 0; i < 8; i++) await h.call(testConnectivity, read("connectivity"));
    expect(serviceCalls(h)).toHaveLength(8);
    for (const certificate of FIVE_DUE) h.sim.addCertificate(certificate);

    const { summary, error } = await timerSweep(h);

    // The list and one renewal: the budget's last two requests.
    expect(serviceCalls(h)).toHaveLength(10);
    expect(summary.counts).toMatchObject({ "renewal-scheduled": 1, deferred: 4 });
    expect(error).toBeInstanceOf(SweepFailedError);
    const problem = (error as SweepFailedError).problems.find((p) => p.includes("deferred"));
    expect(problem).toMatch(
      /^4 certificate\(s\) deferred \(quota\), the service's request budget is spent \(CERTSCHED_SERVICE_QUOTA 10\/7d: 6 used by reads and tests, 2 by other runs and processes \(their lists and renewals\), 2 by this run, 0 left\): /,
    );
    expect(problem).not.toContain("more urgent");
  });
});

describe("one budget for every process", () => {
  it("two `certsched sweep` processes started together never send more than the quota in all", async () => {
    const due: SeedCertificate[] = Array.from({ length: 12 }, (_, i) => ({
      certificateName: `pair-${String(i).padStart(2, "0")}`,
      id: 9200 + i,
      expiryDate: days(1 + i),
    }));
    const h = await appWith(due);
    h.sim.reset();
    const env = { AzureWebJobsStorage: azurite.connectionString, CERTSCHED_SERVICE_QUOTA: "10/7d" };

    const [one, two] = await Promise.all([
      cliAgainst(h.sim, ["sweep", "--json"], { env }),
      cliAgainst(h.sim, ["sweep", "--json"], { env }),
    ]);

    const calls = serviceCalls(h);
    expect(calls.length).toBeLessThanOrEqual(10);
    expect(calls.length).toBeGreaterThanOrEqual(8);
    const renewed = renewedOnTheWire(h);
    // The shared ledger: no certificate ordered twice.
    expect(new Set(renewed).size).toBe(renewed.length);
    expect(one.code).toBe(1);
    expect(two.code).toBe(1);
    const deferredOf = (r: typeof one) =>
      (jsonOf<{ counts: { deferred: number } }>(r).counts?.deferred ?? 0) as number;
    expect(deferredOf(one) + deferredOf(two)).toBeGreaterThan(0);
  });

  it("an instance whose clock runs 8 days behind still counts in the window: 6/7d, two sweeps, 6 requests", async () => {
    const behind = () => new Date(Date.now() - 8 * DAY_MS);
    // Expiry as the skewed instance sees it: due within its 20 days.
    const due = FIVE_DUE.map((c) => ({
      ...c,
      expiryDate: new Date(c.expiryDate.getTime() - 8 * DAY_MS),
    }));
    const skewed = await appWith(due, { CERTSCHED_SERVICE_QUOTA: "6/7d" }, behind);

    const first = await timerSweep(skewed);
    expect(first.summary.counts).toMatchObject({ "renewal-scheduled": 5 });
    expect(serviceCalls(skewed)).toHaveLength(6);
    const sim = skewed.sim;
    // Only its first row carries its own clock's time; the others the storage's, so the
    // history's cleanup cannot take them for old while they are in the window.
    const rows = TableClient.fromConnectionString(azurite.connectionString, HISTORY_TABLE, {
      allowInsecureConnection: true,
    });
    const times: number[] = [];
    for await (const row of rows.listEntities<{ at: string }>({
      queryOptions: { filter: "PartitionKey eq 'request'" },
    })) {
      times.push(Date.parse(row.at));
    }
    expect(times).toHaveLength(6);
    expect(times.filter((t) => t < Date.now() - DAY_MS)).toHaveLength(1);

    // The right clock, the same storage, a ledger of its own: everything looks due again.
    await skewed.configure(
      { AzureWebJobsStorage: azurite.connectionString, CERTSCHED_SERVICE_QUOTA: "6/7d" },
      { ledger: memoryLedger() },
    );
    const second = await timerSweep(skewed);

    expect(serviceCalls(skewed)).toHaveLength(6);
    expect(sim.requestsFor("publicRenew")).toHaveLength(5);
    expect(second.error).toBeInstanceOf(SweepFailedError);
    expect(JSON.stringify((second.error as SweepFailedError).problems)).toContain(
      "CERTSCHED_SERVICE_QUOTA 6/7d: 0 used by reads and tests, 6 by other runs and processes",
    );
  });
});

describe("another process takes what was left while a sweep renews", () => {
  it("the retry it can no longer send is not sent: that renewal ends with the service's answer, the others are deferred with the cause named", async () => {
    const h = await appWith(FIVE_DUE, {
      CERTSCHED_SERVICE_QUOTA: "6/7d",
      CERTSCHED_RENEWAL_CONCURRENCY: "1",
    });
    // The first renewal is answered 503 with a second's wait: meanwhile another process sends.
    h.sim.inject("publicRenew", { status: 503, headers: { "retry-after": "1" }, times: 1 });

    const sweeping = timerSweep(h);
    while (h.sim.requestsFor("publicRenew").length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const at = new Date();
    await history.recordRequests(
      [1, 2, 3, 4].map(() => ({ at, operation: "list", trigger: "cli" as const })),
    );
    const { summary, error } = await sweeping;

    // Its list and the first attempt; four others: the quota's six. Nothing more was sent.
    expect(serviceCalls(h)).toHaveLength(2);
    // The 503 is what the service said (nothing ordered: the next sweep asks again); the
    // budget's refusal of its retry does not hide it.
    expect(summary.certificates.map((c) => `${c.name} ${c.outcome}`)).toEqual([
      "due-1 failed",
      "due-2 deferred",
      "due-3 deferred",
      "due-4 deferred",
      "due-5 deferred",
    ]);
    expect(error).toBeInstanceOf(SweepFailedError);
    expect((error as SweepFailedError).problems).toContainEqual(
      expect.stringMatching(
        /^4 certificate\(s\) deferred \(quota\), the service's request budget is spent \(CERTSCHED_SERVICE_QUOTA 6\/7d: 0 used by reads and tests, 4 by other runs and processes \(their lists and renewals\), 2 by this run, 0 left\): due-2, due-3, due-4, due-5$/,
      ),
    );
  });
});

describe("a renewal the budget refuses", () => {
  it("an Operator's renew by name past the budget: 429 saying the budget is spent (not 'kept for renewals'), nothing sent", async () => {
    const h = await appWith(FIVE_DUE, { CERTSCHED_SERVICE_QUOTA: "2/7d" });
    const at = new Date();
    await history.recordRequests(
      [1, 2].map(() => ({ at, operation: "renew" as const, trigger: "timer" as const })),
    );

    const reply = await h.call(
      renewCertificate,
      httpRequest({
        method: "POST",
        path: "certificates/due-1/renew",
        params: { name: "due-1" },
        headers: { "x-ms-client-principal": principalHeader({ roles: [OPERATOR] }) },
      }),
    );

    expect(serviceCalls(h)).toEqual([]);
    expect(reply.status).toBe(429);
    const body = reply.body as { code: string; title: string; detail: string };
    expect(body.code).toBe("QUOTA_EXHAUSTED");
    expect(body.title).toBe("The service's request budget is spent");
    expect(body.detail).toContain("the budget is spent");
    expect(Number(reply.headers["retry-after"])).toBeGreaterThan(0);
  });
});

describe("where no storage keeps the budget", () => {
  it("no storage configured: this run's requests only, as before, with the warning", async () => {
    app = await startHarness({ certificates: FIVE_DUE });
    await app.configure({ CERTSCHED_SERVICE_QUOTA: "3/7d" }, { ledger: memoryLedger() });

    const { summary, error } = await timerSweep(app);

    // The list and two renewals: the quota, counted in this process.
    expect(serviceCalls(app)).toHaveLength(3);
    expect(summary.counts).toMatchObject({ "renewal-scheduled": 2, deferred: 3 });
    expect(error).toBeInstanceOf(SweepFailedError);
    expect(app.logs.map((l) => l.message)).toContainEqual(
      expect.stringContaining("no storage keeps the request count"),
    );
  });

  it("storage that cannot be reached does not stop a renewal: sent, and the run says the count failed", async () => {
    const port = await closedPort();
    app = await startHarness({ certificates: FIVE_DUE.slice(0, 1) });
    await app.configure(
      {
        CERTSCHED_SERVICE_QUOTA: "3/7d",
        AzureWebJobsStorage: `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${"A".repeat(86)}==;TableEndpoint=http://127.0.0.1:${port}/devstoreaccount1;QueueEndpoint=http://127.0.0.1:${port}/devstoreaccount1;BlobEndpoint=http://127.0.0.1:${port}/devstoreaccount1;`,
      },
      { ledger: memoryLedger() },
    );

    const { summary } = await timerSweep(app);

    expect(renewedOnTheWire(app)).toEqual(["due-1"]);
    expect(summary.counts).toMatchObject({ "renewal-scheduled": 1 });
    const warnings = app.logs.filter((l) => l.level === "warning").map((l) => l.message);
    expect(warnings).toContainEqual(
      expect.stringMatching(/^certsched: \d+ request\(s\) to the service could not be counted/),
    );
  }, 60_000);
});

describe("the window is the storage service's (a short window, a real clock)", () => {
  const budgetOf = (requests: number, windowMs: number, now: () => Date) =>
    sharedBudget({
      connectionString: azurite.connectionString,
      quota: { requests, windowMs, text: `${requests}/${windowMs}ms` },
      now,
      need: async () => 0,
    });
  const reserve = (budget: ReturnType<typeof budgetOf>, runId = "run") =>
    budget.reserve({ operation: "list", trigger: "timer", purpose: "renewal", runId });

  it("rows leave the window on the storage clock, whatever the hosts' clocks say", async () => {
    const ahead = budgetOf(2, 3_000, () => new Date(Date.now() + 30 * DAY_MS));
    const behind = budgetOf(2, 3_000, () => new Date(Date.now() - 30 * DAY_MS));
    await reserve(ahead);
    await reserve(behind);
    await expect(reserve(ahead)).rejects.toBeInstanceOf(QuotaExhaustedError);
    await expect(reserve(behind)).rejects.toBeInstanceOf(QuotaExhaustedError);
    await new Promise((resolve) => setTimeout(resolve, 3_300));
    await reserve(behind);
    await reserve(ahead);
    await expect(reserve(ahead)).rejects.toBeInstanceOf(QuotaExhaustedError);
  });

  it("the daily cleanup never removes a request still in the window, whatever clock wrote its key (a fresh process 8 days behind)", async () => {
    // CERTSCHED_HISTORY_RETENTION as short as the window: the cleanup removes at its edge.
    const h = await appWith([], {
      CERTSCHED_SERVICE_QUOTA: "2/7d",
      CERTSCHED_HISTORY_RETENTION: "7d",
    });
    const week = 7 * DAY_MS;
    // A process that never reserved before (a CLI command, say) on a host 8 days behind: the
    // only time it has for its row is its own.
    const skewed = budgetOf(2, week, () => new Date(Date.now() - 8 * DAY_MS));
    await (await reserve(skewed, "skewed")).settle(true);

    await cleanupHistory(timer(), h.context("cleanupHistory"));

    // The skewed request reached the service a moment ago: one request is left of two.
    const right = budgetOf(2, week, () => new Date());
    await (await reserve(right, "right")).settle(true);
    await expect(reserve(right, "right")).rejects.toBeInstanceOf(QuotaExhaustedError);
  });

  it("a reservation whose request never left is released; one sent stays", async () => {
    const budget = budgetOf(1, 3_600_000, () => new Date());
    const unsent = await reserve(budget);
    await unsent.settle(false);
    const sent = await reserve(budget);
    await sent.settle(true);
    await expect(reserve(budget)).rejects.toBeInstanceOf(QuotaExhaustedError);
  });

  it("30 processes reserving at once against 10: never more than 10 granted", async () => {
    const budgets = Array.from({ length: 30 }, () => budgetOf(10, 3_600_000, () => new Date()));
    const outcomes = await Promise.allSettled(budgets.map((b, i) => reserve(b, `p${i}`)));
    const granted = outcomes.filter((o) => o.status === "fulfilled").length;
    expect(granted).toBeLessThanOrEqual(10);
    expect(granted).toBeGreaterThan(0);
    for (const o of outcomes) {
      if (o.status === "rejected") expect(o.reason).toBeInstanceOf(QuotaExhaustedError);
    }
    // What stands in storage is what was granted: the refused released their rows.
    const table = TableClient.fromConnectionString(azurite.connectionString, HISTORY_TABLE, {
      allowInsecureConnection: true,
    });
    let rows = 0;
    for await (const _ of table.listEntities({
      queryOptions: { filter: "PartitionKey eq 'request'" },
    })) {
      rows += 1;
    }
    expect(rows).toBe(granted);
  });
});
