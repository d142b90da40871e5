import { setTimeout as sleep } from "node:timers/promises";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { renewDueCertificates } from "../../../../functions/handlers/renewDueCertificates.js";
import { tableHistory } from "../../../../shared/adapters/storage/tableHistory.js";
import { tableInventory } from "../../../../shared/adapters/storage/tableInventory.js";
import { tableLedger } from "../../../../shared/adapters/storage/tableLedger.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { type AppHarness, startHarness, uniqueTableName } from "../../../support/app.js";
import { type CountingProxy, countingProxy } from "../../../support/countingProxy.js";
import { timer } from "../../../support/invoke.js";
import { type Receiver, startReceiver } from "../../../support/webhookReceiver.js";

/**
 * The run budget, scaled down: the function timeout is 4 s instead of 10 min, each service call takes
 * 150 ms, two renewals at a time, and some renew calls hang for a minute (their 1-s timeout
 * ends them). Without the run budget the renewals of the larger draws alone would take longer
 * than the timeout (80 x 150 ms / 2 = 6 s). Whatever the draw, the timer's run is over, its
 * webhook received and its history row (the run's last line) written before the timeout,
 * measured from the invocation's start; over Azurite and the simulator.
 */

const TIMEOUT_MS = 4_000;
/**
 * How long a hanging renewal takes to answer. A run that waited for one would end after it; one
 * that keeps its budget ends near TIMEOUT_MS. How near, on a given machine, is the bench's figure
 * ("Bookkeeping of 20,000 certificates"): a wall-clock bound here would fail on a busy machine.
 */
const HANG_MS = 60_000;
const LATENCY_MS = 150;

let app: AppHarness;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  app = await startHarness({ latencyMs: LATENCY_MS });
});
afterAll(async () => {
  await app.close();
  await receiver.close();
});

describe("the timer's whole run inside the function timeout", () => {
  it("writes its last line without waiting for hanging renewals, for any number of certificates and hanging share", async () => {
    const connectionString = inject("azuriteTableConnectionString");
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 80 }),
        fc.double({ min: 0, max: 0.2, noNaN: true }),
        async (count, hangingShare) => {
          round += 1;
          // Certificates of this draw only: a name per round, all due.
          for (let i = 0; i < count; i++) {
            app.sim.addCertificate({
              certificateName: `r${round}-c${i}`,
              expiryDate: new Date(Date.now() + 5 * DAY_MS),
            });
          }
          const where = { connectionString, timeoutMs: 10_000 };
          const history = tableHistory({ ...where, tableName: uniqueTableName("bh") });
          const inventory = tableInventory({ ...where, tableName: uniqueTableName("bi") });
          await app.configure(
            {
              CERTSCHED_FUNCTION_TIMEOUT: `${TIMEOUT_MS / 1000}s`,
              CERTSCHED_SWEEP_DEADLINE: "1h",
              CERTSCHED_HTTP_TIMEOUT: "1s",
              CERTSCHED_RENEWAL_CONCURRENCY: "2",
              CERTSCHED_WEBHOOK_URL: `${receiver.baseUrl}/hook`,
              CERTSCHED_NOTIFY_SUCCESS: "true",
            },
            {
              ledger: tableLedger({ ...where, tableName: uniqueTableName("bl") }),
              history,
              inventory,
            },
          );
          app.sim.clearFaults();
          const hanging = Math.round(count * hangingShare);
          if (hanging > 0) app.sim.inject("publicRenew", { delayMs: HANG_MS, times: hanging });
          const received = receiver.received.length;
          const start = performance.now();
          const outcome = await renewDueCertificates(
            timer(),
            app.context("renewDueCertificates"),
          ).then(
            () => "succeeded",
            () => "failed",
          );
          const elapsed = performance.now() - start;
          // The run's last line: its history row, written again after its bookkeeping.
          const { items: runs } = await history.runs(5);
          // It never waited for a hanging renewal, and its last line is written.
          expect(elapsed).toBeLessThan(HANG_MS / 2);
          expect(runs).toHaveLength(1);
          const run = runs[0];
          // Every due certificate of this draw (and of earlier rounds) is accounted for.
          expect(run?.counts.due).toBeGreaterThanOrEqual(count);
          expect(receiver.received.length - received).toBe(1);
          // A hanging renewal, or one never started, fails the run; the history says which.
          if (hanging > 0) expect(outcome).toBe("failed");
          if (run?.bookkeeping) {
            expect(run.bookkeeping.incomplete.length).toBeGreaterThan(0);
          } else {
            // Done: the inventory holds every listed certificate.
            expect((await inventory.list()).items.length).toBe(run?.counts.due);
          }
        },
      ),
      { numRuns: Number(process.env.BUDGET_RUNS ?? 4), endOnFailure: true },
    );
  }, 600_000);

  // The rule: the inventory is written from each run's due list, first thing after the list, so
  // the next run writes every certificate that is still due. One this run renewed and the
  // service no longer lists is not (the report of the timeout says so).
  it("names the steps it could not finish in its history row, and the next run completes the inventory", async () => {
    const connectionString = inject("azuriteTableConnectionString");
    let slow = true;
    // The inventory's storage: its transactions hang 6 s and get no answer, while slow. Which of
    // them have begun and ended says whether the run waited for them, whatever the machine's pace.
    const hung = { begun: 0, ended: 0 };
    const proxy: CountingProxy = await countingProxy(connectionString, async (request) => {
      if (!slow || !request.endsWith("/$batch")) return undefined;
      hung.begun += 1;
      await sleep(6_000);
      hung.ended += 1;
      return "drop";
    });
    try {
      for (let i = 0; i < 30; i++) {
        app.sim.addCertificate({
          certificateName: `cut-${i}`,
          expiryDate: new Date(Date.now() + 5 * DAY_MS),
        });
      }
      const where = { connectionString, timeoutMs: 10_000 };
      const history = tableHistory({ ...where, tableName: uniqueTableName("ch") });
      const inventoryTable = uniqueTableName("ci");
      const inventory = tableInventory({ ...where, tableName: inventoryTable });
      const configure = () =>
        app.configure(
          {
            CERTSCHED_FUNCTION_TIMEOUT: "3s",
            CERTSCHED_SWEEP_DEADLINE: "1h",
            CERTSCHED_HTTP_TIMEOUT: "1s",
            CERTSCHED_RENEWAL_CONCURRENCY: "8",
          },
          {
            ledger: tableLedger({ ...where, tableName: uniqueTableName("cl") }),
            history,
            inventory: tableInventory({
              connectionString: proxy.connectionString,
              tableName: inventoryTable,
              timeoutMs: 10_000,
            }),
          },
        );
      await configure();
      app.sim.clearFaults();
      // Refused renewals: the certificates stay due, so the next run lists them again.
      app.sim.inject("publicRenew", { status: 503, times: Number.POSITIVE_INFINITY });
      await renewDueCertificates(timer(), app.context("renewDueCertificates")).catch(() => {});
      // It wrote the inventory and ended without waiting for the storage's answer.
      expect(hung.begun).toBeGreaterThan(0);
      expect(hung.ended).toBe(0);
      const [cut] = (await history.runs(5)).items;
      // The inventory was not written in time; nor what came after it (on a busy machine an
      // earlier step may not have been either).
      expect(cut?.bookkeeping?.incomplete).toEqual(
        expect.arrayContaining(["inventory", "verification", "telemetry"]),
      );
      expect(cut?.counts.due).toBeGreaterThanOrEqual(30);
      expect((await inventory.list()).items.map((r) => r.certificateName)).not.toContain("cut-0");

      slow = false;
      app.sim.clearFaults();
      await configure();
      await renewDueCertificates(timer(), app.context("renewDueCertificates")).catch(() => {});
      const [next] = (await history.runs(5)).items;
      expect(next?.runId).not.toBe(cut?.runId);
      expect(next?.bookkeeping).toBeUndefined();
      const names = (await inventory.list()).items.map((r) => r.certificateName);
      for (let i = 0; i < 30; i++) expect(names).toContain(`cut-${i}`);
    } finally {
      await proxy.close();
    }
  }, 60_000);
});
