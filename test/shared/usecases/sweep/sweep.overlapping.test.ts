import { describe, expect, inject, it } from "vitest";
import { tableLedger } from "../../../../shared/adapters/storage/tableLedger.js";
import type { Ledger, LedgerRecord } from "../../../../shared/core/ports/ledger.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";
import { sweep } from "../../../../shared/usecases/sweep/sweep.js";
import { startSimulator } from "../../../../sim/index.js";
import { collectingLogger, leaksIn, runtimeFor, uniqueTableName } from "../../../support/app.js";

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
        sweep(a, logA.log, { concurrency: ca }),
        sweep(b, logB.log, { concurrency: cb }),
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

/**
 * Two ledger clients that meet on every row: neither writes a row before both have read it, so
 * both sweeps hold the same ETag and race on the conditional write, every time rather than when
 * the timing happens to line up. Reads and writes still go to Azurite.
 */
function meetingOnEveryRow(a: Ledger, b: Ledger): [Ledger, Ledger] {
  const rows = new Map<number, { reads: number; bothRead: Promise<void>; release: () => void }>();
  const row = (id: number) => {
    let entry = rows.get(id);
    if (!entry) {
      let release = () => {};
      const bothRead = new Promise<void>((resolve) => {
        release = resolve;
      });
      entry = { reads: 0, bothRead, release };
      rows.set(id, entry);
    }
    return entry;
  };
  const meeting = (inner: Ledger): Ledger => ({
    kind: inner.kind,
    open: () => inner.open(),
    async read(id) {
      const entry = await inner.read(id);
      const r = row(id);
      r.reads += 1;
      if (r.reads === 2) r.release();
      return entry;
    },
    async write(record, etag) {
      await row(record.id).bothRead;
      return inner.write(record, etag);
    },
  });
  return [meeting(a), meeting(b)];
}

describe("two overlapping sweeps renewing again after the grace (the Replace path)", () => {
  it.each([
    [1, 1],
    [4, 2],
  ])("renew each certificate exactly once (concurrency %i and %i)", async (ca, cb) => {
    const sim = await startSimulator({
      completionDelayMs: 30 * 60_000,
      certificates: Array.from({ length: CERTIFICATES }, (_, i) => ({
        certificateName: `again-${i}`,
        expiryDate: new Date(Date.now() + (3 + i) * DAY_MS),
      })),
    });
    const tableName = uniqueTableName("replace");
    const connectionString = inject("azuriteTableConnectionString");
    const seeder = tableLedger({ connectionString, tableName });
    const [ledgerA, ledgerB] = meetingOnEveryRow(
      tableLedger({ connectionString, tableName }),
      tableLedger({ connectionString, tableName }),
    );
    const a = runtimeFor(sim, {}, { ledger: ledgerA });
    const b = runtimeFor(sim, {}, { ledger: ledgerB });
    const logA = collectingLogger();
    const logB = collectingLogger();
    try {
      // Every certificate was asked for 3 h ago and is still listed: past the 2 h grace, not
      // stuck, so both sweeps decide to ask again and each Replaces the row it read.
      const requestedAt = new Date(Date.now() - 3 * HOUR_MS);
      await seeder.open();
      const { certificates } = await a.client.listDue();
      expect(certificates).toHaveLength(CERTIFICATES);
      for (const cert of certificates) {
        const seeded: LedgerRecord = {
          id: cert.id,
          certificateName: cert.certificateName,
          expiryAtRequest: cert.expiryDate,
          firstRequestedAt: requestedAt,
          lastRequestedAt: requestedAt,
          outcome: "renewal-scheduled",
          attempts: 1,
          detail: undefined,
        };
        expect(await seeder.write(seeded, undefined)).not.toBe("conflict");
      }

      const [sa, sb] = await Promise.all([
        sweep(a, logA.log, { concurrency: ca }),
        sweep(b, logB.log, { concurrency: cb }),
      ]);

      for (const cert of certificates) {
        const name = cert.certificateName;
        expect(sim.renewCallsFor(name), name).toBe(1);
        const both = [sa, sb].map((s) => s.results.find((r) => r.certificateName === name));
        expect(both.map((r) => r?.outcome).sort(), name).toEqual(["renewal-scheduled", "skipped"]);
        expect(both.find((r) => r?.outcome === "skipped")?.detail, name).toBe(
          "another sweep is renewing it right now",
        );
        // The winner's write: a second attempt of the same episode.
        expect((await seeder.read(cert.id))?.record, name).toMatchObject({
          firstRequestedAt: requestedAt,
          attempts: 2,
          outcome: "renewal-scheduled",
        });
      }
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
