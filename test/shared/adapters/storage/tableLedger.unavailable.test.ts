import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { renewDueCertificates } from "../../../../functions/renewDueCertificates.js";
import { getAccountPorts } from "../../../../shared/app/services.js";
import type { SweepSummary } from "../../../../shared/core/renewal/summary.js";
import { contextLogger } from "../../../../shared/edge/contextLogger.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { sweep } from "../../../../shared/usecases/sweep/sweep.js";
import { type AppHarness, startHarness } from "../../../support/app.js";
import { type AzuriteHandle, startAzurite } from "../../../support/azurite.js";
import { timer } from "../../../support/invoke.js";

const DUE = ["www-contoso-com", "api-contoso-com", "vault-fabrikam-com"];

let app: AppHarness;
// A private Azurite: the default ledger table (AzureWebJobsStorage) must not be shared with
// other test files running at the same time.
let azurite: AzuriteHandle;

beforeAll(async () => {
  azurite = await startAzurite();
});
afterAll(() => azurite.stop());

beforeEach(async () => {
  app = await startHarness({
    completionDelayMs: 30 * 60_000,
    certificates: [
      ...DUE.map((certificateName, i) => ({
        certificateName,
        expiryDate: new Date(Date.now() + (2 + i) * DAY_MS),
      })),
      { certificateName: "blog-contoso-com", expiryDate: new Date(Date.now() + 45 * DAY_MS) },
    ],
  });
});
afterEach(async () => {
  expect(app.leaks()).toEqual([]);
  await app.close();
});

/**
 * The sweep as the queue trigger runs it for POST /api/renewals (which only queues it, and
 * needs the same storage for its run queue: docs/runs.md), logging through its context.
 */
async function runNow(): Promise<SweepSummary> {
  return sweep(getAccountPorts(), contextLogger(app.context("runQueuedRenewals")), {
    trigger: "queue",
  });
}

describe("the ledger from AzureWebJobsStorage", () => {
  it("guards against a second renewal when storage is there", async () => {
    await app.configure({ AzureWebJobsStorage: azurite.connectionString });

    const first = await runNow();
    const second = await runNow();

    expect(first).toMatchObject({ ledger: "table", failed: false });
    expect(first.counts["renewal-scheduled"]).toBe(3);
    expect(second.counts.skipped).toBe(3);
    for (const name of DUE) expect(app.sim.renewCallsFor(name)).toBe(1);
  });
});

describe("storage that is down", () => {
  beforeAll(async () => {
    // The Azurite the test above used, now gone.
    await azurite.stop();
  });

  it("renews nothing (no duplicate protection), names every certificate, and fails the run", async () => {
    await app.configure({ AzureWebJobsStorage: azurite.connectionString });

    const summary = await runNow();

    expect(summary.ledger).toBe("unavailable");
    expect(summary.failed).toBe(true);
    expect(summary.results.map((r) => [r.certificateName, r.outcome, r.reason])).toEqual(
      DUE.map((name) => [name, "not-attempted", "LedgerUnavailable"]),
    );
    expect(app.sim.requestsFor("publicRenew")).toEqual([]);
    const [problem, ...others] = summary.problems;
    expect(problem).not.toContain("\n");
    expect(problem).toBe(
      "renewal ledger unavailable, so no renewal was started after it failed (without it one could be ordered twice): renewal ledger: cannot open table certschedrenewals (ECONNREFUSED)",
    );
    expect(others).toEqual([
      `3 certificate(s) not attempted, the renewal ledger is unavailable: ${DUE.join(", ")}`,
    ]);
    expect(app.logs).toContainEqual(
      expect.objectContaining({ level: "error", message: `certsched ${problem}` }),
    );
  });

  it("makes the timer fail, naming the ledger, after renewing nothing", async () => {
    await app.configure({ AzureWebJobsStorage: azurite.connectionString });

    await expect(
      renewDueCertificates(timer(), app.context("renewDueCertificates")),
    ).rejects.toThrow(/^certsched renewal sweep failed: renewal ledger unavailable/);

    expect(app.sim.requestsFor("publicRenew")).toEqual([]);
  });

  it("a dry run still decides without it, and fails naming it", async () => {
    await app.configure({
      AzureWebJobsStorage: azurite.connectionString,
      CERTSCHED_DRY_RUN: "true",
    });

    const summary = await runNow();

    expect(summary).toMatchObject({ ledger: "unavailable", failed: true, dryRun: true });
    expect(summary.results.map((r) => r.outcome)).toEqual(DUE.map(() => "would-renew"));
    expect(summary.problems).toEqual([
      "renewal ledger unavailable, dry run decided without it: renewal ledger: cannot open table certschedrenewals (ECONNREFUSED)",
    ]);
  });
});

describe("no storage configured", () => {
  it("sweeps without a ledger and warns that it does", async () => {
    await app.configure({ AzureWebJobsStorage: undefined });

    const summary = await runNow();

    expect(summary).toMatchObject({ ledger: "none", failed: false, problems: [] });
    expect(summary.counts["renewal-scheduled"]).toBe(3);
    expect(app.logs).toContainEqual(
      expect.objectContaining({
        level: "warning",
        message: expect.stringMatching(/no storage configured \(AzureWebJobsStorage\)/),
      }),
    );
  });

  it("lets the timer succeed", async () => {
    await app.configure();

    await expect(
      renewDueCertificates(timer(), app.context("renewDueCertificates")),
    ).resolves.toBeUndefined();
  });
});
