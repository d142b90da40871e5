import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { runRenewals } from "../../../functions/runRenewals.js";
import { memoryRunStore } from "../../../shared/adapters/storage/memory/memoryRunStore.js";
import { loadSettings } from "../../../shared/app/config/settings.js";
import { getAccountPorts } from "../../../shared/app/services.js";
import { memoryLedger } from "../../../shared/core/ports/ledger.js";
import type { RunStore } from "../../../shared/core/ports/runStore.js";
import { MAX_DEQUEUE_COUNT } from "../../../shared/core/runs/run.js";
import { CertschedError } from "../../../shared/lib/errors.js";
import { sandboxSettings } from "../../../sim/index.js";
import { type AppHarness, startHarness } from "../../support/app.js";
import { hostQueueSettings } from "../../support/hostLoop.js";
import { httpRequest } from "../../support/invoke.js";
import { inDays, runOf } from "../../support/runs.js";

let app: AppHarness;

beforeEach(async () => {
  app = await startHarness({
    completionDelayMs: 30 * 60_000,
    certificates: [{ certificateName: "www-contoso-com", expiryDate: inDays(5) }],
  });
});
afterEach(async () => {
  await getAccountPorts().runs.settled();
  expect(app.leaks()).toEqual([]);
  await app.close();
});

describe("where runs live", () => {
  it("with AzureWebJobsStorage: the table and the Storage Queue", async () => {
    await app.configure({ AzureWebJobsStorage: inject("azuriteTableConnectionString") });
    const runs = getAccountPorts().runs;
    expect([runs.store.kind, runs.queue.kind]).toEqual(["table", "storage"]);
  });

  it("with CERTSCHED_LEDGER_TABLE_URI and CERTSCHED_QUEUE_URI (the identity): the same", async () => {
    await app.configure({
      CERTSCHED_LEDGER_TABLE_URI: "https://st.table.core.windows.net",
      CERTSCHED_QUEUE_URI: "https://st.queue.core.windows.net",
    });
    const runs = getAccountPorts().runs;
    expect([runs.store.kind, runs.queue.kind]).toEqual(["table", "storage"]);
  });

  it("CERTSCHED_QUEUE_URI must be https (or loopback)", () => {
    const env = {
      ...sandboxSettings(app.sim),
      CERTSCHED_QUEUE_URI: "http://st.queue.core.windows.net",
    };
    expect(() => loadSettings(env)).toThrow(
      "CERTSCHED_QUEUE_URI: must use https (plain http is accepted only for loopback hosts)",
    );
  });

  it("without storage: in this process, the message delivered here", async () => {
    const runs = getAccountPorts().runs;
    expect([runs.store.kind, runs.queue.kind]).toEqual(["memory", "inline"]);

    const reply = await app.call(runRenewals, httpRequest({ path: "renewals" }));
    expect(reply.status).toBe(202);
    await runs.settled();

    const run = await runs.store.get(runOf(reply).runId);
    expect(run).toMatchObject({ state: "succeeded", attempts: 1 });
    expect(app.sim.renewCallsFor("www-contoso-com")).toBe(1);
  });
});

describe("the in-process queue follows host.json", () => {
  it("uses the same maxDequeueCount", () => {
    expect(MAX_DEQUEUE_COUNT).toBe(hostQueueSettings().maxDequeueCount);
  });

  it("delivers a failing run maxDequeueCount times, then poisons it: failed, the alert's line logged", async () => {
    const memory = memoryRunStore();
    let finishedSaves = 0;
    const store: RunStore = {
      ...memory,
      save: async (run) => {
        if (run.state === "succeeded" || run.state === "failed") {
          finishedSaves += 1;
          // Only the poison handling's save gets through.
          if (run.summary)
            throw new CertschedError("RUNS_UNAVAILABLE", "run store: cannot write (503)");
        }
        await memory.save(run);
      },
    };
    // The ledger keeps each new delivery from renewing again (without one, nothing would).
    await app.configure({}, { ledger: memoryLedger(), runs: { store } });

    const reply = await app.call(
      runRenewals,
      httpRequest({ path: "renewals", query: { wait: "30" } }),
    );

    expect(reply.status).toBe(200);
    expect(runOf(reply)).toMatchObject({ state: "failed", attempts: MAX_DEQUEUE_COUNT });
    expect(runOf(reply).problem).toMatch(
      /moved to the poison queue certsched-runs-poison; the last attempt failed: run store: cannot write \(503\)$/,
    );
    expect(finishedSaves).toBe(MAX_DEQUEUE_COUNT + 1);
    expect(app.sim.renewCallsFor("www-contoso-com")).toBe(1);
    expect(app.logs.filter((l) => l.message.startsWith("certsched run poisoned: "))).toHaveLength(
      1,
    );
  });
});
