import { describe, expect, inject, it } from "vitest";
import { sweepWith } from "../../shared/api/scheduleSweep.js";
import { tableLedger } from "../../shared/ledger/tableLedger.js";
import { startSimulator } from "../../sim/index.js";
import {
  collectingLogger,
  DAY_MS,
  leaksIn,
  runtimeFor,
  uniqueTableName,
} from "../functions/harness.js";

const CERTIFICATES = 12;

/**
 * Two function instances (two runtimes, two ledger clients) sweeping at the same moment over
 * one Azurite table: the conditional writes must let exactly one of them renew each certificate.
 */
describe("two overlapping sweeps sharing one table ledger", () => {
  it.each([
    [1, 1],
    [4, 4],
    [8, 2],
  ])("renew each certificate exactly once (concurrency %i and %i)", async (ca, cb) => {
    const sim = await startSimulator({
      completionDelayMs: 30 * 60_000,
      // Enough latency that both sweeps are mid-flight together.
      latencyMs: 10,
      certificates: Array.from({ length: CERTIFICATES }, (_, i) => ({
        certificateName: `cert-${i}`,
        expiryDate: new Date(Date.now() + (3 + i) * DAY_MS),
      })),
    });
    const tableName = uniqueTableName("overlap");
    const connectionString = inject("azuriteTableConnectionString");
    const a = runtimeFor(sim, {}, { ledger: tableLedger({ connectionString, tableName }) });
    const b = runtimeFor(sim, {}, { ledger: tableLedger({ connectionString, tableName }) });
    const logA = collectingLogger();
    const logB = collectingLogger();
    try {
      const [sa, sb] = await Promise.all([
        sweepWith(a, logA.log, { concurrency: ca }),
        sweepWith(b, logB.log, { concurrency: cb }),
      ]);

      for (let i = 0; i < CERTIFICATES; i++) {
        const name = `cert-${i}`;
        expect(sim.renewCallsFor(name), name).toBe(1);
        const both = [sa, sb].map((s) => s.results.find((r) => r.certificateName === name));
        expect(both.map((r) => r?.outcome).sort(), name).toEqual(["renewal-scheduled", "skipped"]);
      }
      expect(sa.counts.due + sb.counts.due).toBe(2 * CERTIFICATES);
      expect(sa.failed || sb.failed).toBe(false);
      const texts = [...logA.lines, ...logB.lines].map((l) => l.message);
      expect(leaksIn(sim, texts)).toEqual([]);
    } finally {
      await a.close();
      await b.close();
      await sim.close();
    }
  });
});
