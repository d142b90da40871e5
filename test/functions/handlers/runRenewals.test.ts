import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { getRenewalRun } from "../../../functions/getRenewalRun.js";
import { runRenewals } from "../../../functions/runRenewals.js";
import { tableLedger } from "../../../shared/adapters/storage/tableLedger.js";
import type { SweepSummary } from "../../../shared/core/renewal/summary.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import {
  type AppHarness,
  type Reply,
  type Settings,
  startHarness,
  uniqueTableName,
} from "../../support/app.js";
import { httpRequest } from "../../support/invoke.js";

// Half a day more, so the whole days left do not change while the test runs.
const inDays = (days: number) => new Date(Date.now() + (days + 0.5) * DAY_MS);

let app: AppHarness;

async function configure(extra: Settings = {}) {
  const ledger = tableLedger({
    connectionString: inject("azuriteTableConnectionString"),
    tableName: uniqueTableName("runrenewals"),
  });
  await app.configure(extra, { ledger });
}

beforeEach(async () => {
  app = await startHarness({
    // Renewals complete later (as the real service's do), so a renewed certificate stays listed.
    completionDelayMs: 30 * 60_000,
    certificates: [
      { certificateName: "www-contoso-com", expiryDate: inDays(5) },
      {
        certificateName: "vault-fabrikam-com",
        target: "Cloud Key Vault + DNS",
        keyVaultName: "kv-fabrikam",
        expiryDate: inDays(2),
      },
      { certificateName: "blog-contoso-com", expiryDate: inDays(45) },
    ],
  });
  await configure();
});
afterEach(async () => {
  expect(app.leaks()).toEqual([]);
  await app.close();
});

/**
 * Without storage for runs (these tests give the app a ledger only), the queue is this process:
 * POST queues the run and it is swept here at once, with the host's retries and poison handling
 * (shared/app/runs.ts). `?wait` makes the request answer with the finished run, which carries
 * the summary's fields. The Storage Queue itself is tested in
 * test/functions/handlers/runQueuedRenewals.test.ts and
 * test/shared/adapters/storage/tableRunStore.unavailable.test.ts.
 */
function run(query: Record<string, string> = {}): Promise<Reply> {
  return app.call(runRenewals, httpRequest({ path: "renewals", query: { wait: "30", ...query } }));
}

describe("runRenewals", () => {
  it("answers 202 with the queued run and its Location when not asked to wait", async () => {
    const reply = await app.call(runRenewals, httpRequest({ path: "renewals" }));

    expect(reply.status).toBe(202);
    const body = reply.body as { runId: string; state: string };
    expect(body.state).toBe("queued");
    expect(reply.headers.location).toBe(`/api/renewals/${body.runId}`);
    // Swept in this process once the request has answered: poll its Location to the end.
    let state = body.state;
    for (let polls = 0; polls < 300 && (state === "queued" || state === "running"); polls++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const polled = await app.call(
        getRenewalRun,
        httpRequest({
          method: "GET",
          path: `renewals/${body.runId}`,
          params: { runId: body.runId },
        }),
      );
      expect(polled.status).toBe(200);
      state = (polled.body as { state: string }).state;
    }
    expect(state).toBe("succeeded");
    expect(app.sim.requestsFor("publicRenew")).toHaveLength(2);
  });

  it("answers 200 with the finished run, the sweep's summary in it, after renewing what is due", async () => {
    const reply = await run();

    expect(reply.status).toBe(200);
    const summary = reply.body as SweepSummary;
    expect(summary).toMatchObject({
      dryRun: false,
      ledger: "table",
      failed: false,
      problems: [],
      counts: { due: 2, "renewal-scheduled": 2, skipped: 0, failed: 0, stuck: 0 },
    });
    expect(
      summary.results
        .map((r) => [r.certificateName, r.outcome])
        .sort(([a], [b]) => (a ?? "").localeCompare(b ?? "")),
    ).toEqual([
      ["vault-fabrikam-com", "renewal-scheduled"],
      ["www-contoso-com", "renewal-scheduled"],
    ]);
    expect(summary.results.find((r) => r.certificateName === "www-contoso-com")).toMatchObject({
      daysLeft: 5,
      detail: "Certificate www-contoso-com is scheduled for renewal.",
    });
    expect(app.sim.renewCallsFor("www-contoso-com")).toBe(1);
    expect(app.sim.renewCallsFor("vault-fabrikam-com")).toBe(1);
    expect(app.sim.renewCallsFor("blog-contoso-com")).toBe(0);
  });

  it("skips what it renewed a moment ago (the ledger remembers)", async () => {
    await run();

    const summary = (await run()).body as SweepSummary;

    expect(summary.counts).toMatchObject({ due: 2, skipped: 2, "renewal-scheduled": 0 });
    expect(app.sim.requestsFor("publicRenew")).toHaveLength(2);
  });

  it("with ?dryRun=true decides but renews nothing", async () => {
    const reply = await run({ dryRun: "true" });

    expect(reply.status).toBe(200);
    const summary = reply.body as SweepSummary;
    expect(summary.dryRun).toBe(true);
    expect(summary.results.map((r) => r.outcome)).toEqual(["would-renew", "would-renew"]);
    expect(app.sim.requestsFor("publicRenew")).toEqual([]);
    expect(app.sim.requestsFor("list")).toHaveLength(1);
  });

  it("?dryRun=false wins over CERTSCHED_DRY_RUN=true", async () => {
    await configure({ CERTSCHED_DRY_RUN: "true" });
    expect(((await run()).body as SweepSummary).dryRun).toBe(true);
    expect(app.sim.requestsFor("publicRenew")).toEqual([]);

    const summary = (await run({ dryRun: "false" })).body as SweepSummary;

    expect(summary.dryRun).toBe(false);
    expect(app.sim.requestsFor("publicRenew")).toHaveLength(2);
  });

  it.each(["maybe", "TRUE", "1", ""])(
    "refuses ?dryRun=%s with 400 naming dryRun",
    async (value) => {
      const reply = await run({ dryRun: value });

      expect(reply.status).toBe(400);
      expect(reply.headers["content-type"]).toBe("application/problem+json");
      expect(reply.body).toMatchObject({
        code: "VALIDATION_FAILED",
        errors: [{ name: "dryRun", message: 'must be "true" or "false"' }],
      });
      expect(app.sim.requests).toEqual([]);
    },
  );

  it("records the run as failed when the sweep had failures: 200, state failed", async () => {
    app.sim.inject("publicRenew", { status: 400, body: "Renewal refused: quota exceeded" });

    const reply = await run();

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ state: "failed", failed: true });
  });

  it("answers with failed: true when a renewal is refused, naming it", async () => {
    app.sim.inject("publicRenew", { status: 400, body: "Renewal refused: quota exceeded" });

    const reply = await run();

    expect(reply.status).toBe(200);
    const summary = reply.body as SweepSummary;
    expect(summary.failed).toBe(true);
    const refused = summary.results.find((r) => r.outcome === "failed");
    expect(summary.problems).toEqual([`1 renewal(s) failed: ${refused?.certificateName}`]);
    expect(summary.results.find((r) => r.outcome === "failed")).toMatchObject({
      status: 400,
      error: "UPSTREAM_REJECTED",
      detail: expect.stringContaining("quota exceeded"),
    });
  });
});
