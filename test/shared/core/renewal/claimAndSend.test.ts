import { TableClient } from "@azure/data-tables";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { tableLedger } from "../../../../shared/adapters/storage/tableLedger.js";
import type { AccountPorts } from "../../../../shared/app/services.js";
import type { Ledger, LedgerOutcome } from "../../../../shared/core/ports/ledger.js";
import { CLAIM_LEASE_MS } from "../../../../shared/core/renewal/decide.js";
import { CertschedError } from "../../../../shared/lib/errors.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";
import { sweep } from "../../../../shared/usecases/sweep/sweep.js";
import { type Simulator, startSimulator } from "../../../../sim/index.js";
import { collectingLogger, leaksIn, runtimeFor, uniqueTableName } from "../../../support/app.js";
import { fakeClock } from "../../../support/clock.js";

/**
 * A sweep that dies between its ledger claim and the renewal request, or between the request
 * and recording the answer: what the next sweep makes of the row it left (Azurite, simulator,
 * a fake clock shared by both).
 */
const T = new Date("2026-05-04T03:00:00.000Z");
const connectionString = () => inject("azuriteTableConnectionString");

/** The table ledger, except that writes of `dieAt` fail the way a killed process leaves them. */
function dyingAt(inner: Ledger, dieAt: LedgerOutcome): Ledger {
  return {
    ...inner,
    kind: inner.kind,
    write: async (record, etag) => {
      if (record.outcome === dieAt) {
        throw new CertschedError("LEDGER_UNAVAILABLE", `the process died before writing ${dieAt}`);
      }
      return inner.write(record, etag);
    },
  };
}

interface World {
  sim: Simulator;
  ledger: Ledger;
  tableName: string;
  clock: ReturnType<typeof fakeClock>;
  runtimes: AccountPorts[];
  logs: string[];
  sweep(at: number, ledger?: Ledger): ReturnType<typeof sweep>;
  close(): Promise<void>;
}

async function world(name: string): Promise<World> {
  const clock = fakeClock(T.toISOString());
  const sim = await startSimulator({
    now: clock.now,
    completionDelayMs: 365 * DAY_MS,
    certificates: [{ certificateName: name, expiryDate: new Date(T.getTime() + 5 * DAY_MS) }],
  });
  const tableName = uniqueTableName("claim");
  const ledger = tableLedger({ connectionString: connectionString(), tableName });
  const runtimes: AccountPorts[] = [];
  const logs: string[] = [];
  return {
    sim,
    ledger,
    tableName,
    clock,
    runtimes,
    logs,
    async sweep(at, withLedger = ledger) {
      clock.set(new Date(T.getTime() + at));
      const runtime = runtimeFor(sim, {}, { now: clock.now, ledger: withLedger });
      runtimes.push(runtime);
      const { log, lines } = collectingLogger();
      const summary = await sweep(runtime, log);
      logs.push(...lines.map((l) => l.message));
      return summary;
    },
    async close() {
      expect(leaksIn(sim, logs)).toEqual([]);
      await Promise.all(runtimes.map((r) => r.close()));
      await sim.close();
    },
  };
}

describe("a sweep that dies after its claim, before sending", () => {
  const NAME = "claimed-contoso-com";
  let w: World;
  beforeAll(async () => {
    w = await world(NAME);
  });
  afterAll(() => w.close());

  // Sequential on purpose: each sweep reads the row the previous one left.
  it("sent nothing, and its run fails naming the claim it left", async () => {
    const summary = await w.sweep(0, dyingAt(w.ledger, "sent"));

    expect(w.sim.renewCallsFor(NAME)).toBe(0);
    expect(summary.failed).toBe(true);
    expect(summary.results[0]).toMatchObject({ outcome: "not-attempted" });
    expect(summary.problems).toContain(
      `1 renewal claim(s) of this sweep left unresolved in the ledger: ${NAME}`,
    );
    const [cert] = w.sim.certificates();
    expect((await w.ledger.read(cert?.id ?? -1))?.record).toMatchObject({
      outcome: "claimed",
      attempts: 0,
      lastRequestedAt: undefined,
      claimedAt: T,
    });
  });

  it("within the claim's lease, the next sweep leaves it to the claimer", async () => {
    const summary = await w.sweep(CLAIM_LEASE_MS - 1_000);

    expect(summary.results[0]).toMatchObject({ outcome: "skipped", reason: "ClaimHeld" });
    expect(w.sim.renewCallsFor(NAME)).toBe(0);
  });

  it("after the lease, the next sweep renews at once (not 'requested 0 min ago') and succeeds", async () => {
    const summary = await w.sweep(CLAIM_LEASE_MS);

    expect(summary.results[0]).toMatchObject({
      outcome: "renewal-scheduled",
      reason: "UnsentClaimExpired",
    });
    expect(summary.failed).toBe(false);
    expect(w.sim.renewCallsFor(NAME)).toBe(1);
    const [cert] = w.sim.certificates();
    expect((await w.ledger.read(cert?.id ?? -1))?.record).toMatchObject({
      outcome: "renewal-scheduled",
      attempts: 1,
      firstRequestedAt: new Date(T.getTime() + CLAIM_LEASE_MS),
    });
  });
});

describe("a sweep that dies after sending, before recording the answer", () => {
  const NAME = "sent-contoso-com";
  let w: World;
  beforeAll(async () => {
    w = await world(NAME);
  });
  afterAll(() => w.close());

  it("sent the request once, and its run fails: the claim is unresolved", async () => {
    const summary = await w.sweep(0, dyingAt(w.ledger, "renewal-scheduled"));

    expect(w.sim.renewCallsFor(NAME)).toBe(1);
    expect(summary.failed).toBe(true);
    expect(summary.problems).toContain(
      `1 renewal claim(s) of this sweep left unresolved in the ledger: ${NAME}`,
    );
  });

  it("the next sweep within the hour treats it as sent, answer unknown, names it, and waits", async () => {
    const summary = await w.sweep(10 * 60_000);

    expect(summary.results[0]).toMatchObject({
      outcome: "skipped",
      reason: "AnswerUnknown",
      answerUnknown: { since: T.toISOString(), overdue: false },
    });
    // The summary itself names it: the webhook and the queued run's JSON carry it.
    expect(summary.unresolved).toEqual([
      expect.objectContaining({ name: NAME, since: T.toISOString(), overdue: false }),
    ]);
    expect(summary.failed).toBe(false);
    expect(w.sim.renewCallsFor(NAME)).toBe(1);
  });

  it("a millisecond short of the hour, it still waits", async () => {
    const summary = await w.sweep(HOUR_MS - 1);

    expect(summary.results[0]).toMatchObject({ outcome: "skipped", reason: "AnswerUnknown" });
    expect(w.sim.renewCallsFor(NAME)).toBe(1);
  });

  it("an hour after the request, still listed with the same expiry, it asks again (not the 2 h grace)", async () => {
    const summary = await w.sweep(HOUR_MS);

    expect(summary.results[0]).toMatchObject({
      outcome: "renewal-scheduled",
      reason: "AnswerUnknownExpired",
    });
    expect(summary.results[0]?.answerUnknown).toBeUndefined();
    expect(summary.unresolved).toBeUndefined();
    expect(summary.failed).toBe(false);
    expect(w.sim.renewCallsFor(NAME)).toBe(2);
  });
});

describe("rows written by someone else", () => {
  const NAME = "legacy-contoso-com";
  let w: World;
  let raw: TableClient;
  beforeAll(async () => {
    w = await world(NAME);
    await w.ledger.open();
    raw = TableClient.fromConnectionString(connectionString(), w.tableName, {
      allowInsecureConnection: true,
    });
  });
  afterAll(() => w.close());

  async function putRow(row: Record<string, unknown>) {
    const [cert] = w.sim.certificates();
    if (!cert) throw new Error("no certificate");
    await raw.upsertEntity(
      {
        partitionKey: "certificate",
        rowKey: String(cert.id),
        certificateName: NAME,
        expiryAtRequest: cert.expiryDate.toISOString(),
        ...row,
      },
      "Replace",
    );
  }

  it("an old 'requesting' row is read as sent, answer unknown: within the grace, wait", async () => {
    const half = new Date(T.getTime() - 30 * 60_000).toISOString();
    await putRow({
      firstRequestedAt: half,
      lastRequestedAt: half,
      outcome: "requesting",
      attempts: 1,
    });

    const summary = await w.sweep(0);

    expect(summary.results[0]).toMatchObject({ outcome: "skipped", reason: "AnswerUnknown" });
    expect(w.sim.renewCallsFor(NAME)).toBe(0);
  });

  it("a row that is not a ledger record is reported by field, not trusted, and fails the run", async () => {
    await putRow({ outcome: "renewed-probably", attempts: "two", lastRequestedAt: "yesterday" });

    const summary = await w.sweep(HOUR_MS);

    expect(summary.failed).toBe(true);
    const [result] = summary.results;
    expect(result).toMatchObject({
      outcome: "failed",
      reason: "LedgerRowInvalid",
      error: "VALIDATION_FAILED",
    });
    expect(result?.detail).toMatch(/^Invalid ledger row \d+ in table claim\w+: /);
    for (const field of ["lastRequestedAt", "outcome", "attempts"]) {
      expect(result?.detail).toContain(`${field}: `);
    }
    expect(result?.detail).toContain("not renewed: correct or delete the row");
    expect(result?.detail).not.toContain("renewed-probably");
    expect(w.sim.renewCallsFor(NAME)).toBe(0);
    expect(summary.problems).toEqual([`1 renewal(s) failed: ${NAME}`]);
  });

  it("once the row is deleted, the next sweep starts a new episode", async () => {
    const [cert] = w.sim.certificates();
    await raw.deleteEntity("certificate", String(cert?.id));

    const summary = await w.sweep(2 * HOUR_MS);

    expect(summary.results[0]).toMatchObject({
      outcome: "renewal-scheduled",
      reason: "NewRenewal",
    });
    expect(w.sim.renewCallsFor(NAME)).toBe(1);
  });
});

describe("a claim taken over after its lease while its sweep was still on the way to send", () => {
  const NAME = "slow-claimer-contoso-com";
  let w: World;
  beforeAll(async () => {
    w = await world(NAME);
  });
  afterAll(() => w.close());

  it("the slow sweep's 'sent' write loses, so it never sends: one renewal in all", async () => {
    // Sweep A's "sent" write waits at a gate the test opens, as a write stalled in the network.
    let reachedGate = () => {};
    const atGate = new Promise<void>((resolve) => {
      reachedGate = resolve;
    });
    let openGate = () => {};
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const slow: Ledger = {
      ...w.ledger,
      kind: w.ledger.kind,
      write: async (record, etag) => {
        if (record.outcome === "sent") {
          reachedGate();
          await gate;
        }
        return w.ledger.write(record, etag);
      },
    };

    const a = w.sweep(0, slow);
    await atGate;
    // A's claim is past its lease: sweep B takes it over and renews.
    const b = await w.sweep(CLAIM_LEASE_MS + 1_000);
    openGate();
    const aSummary = await a;

    expect(b.results[0]).toMatchObject({
      outcome: "renewal-scheduled",
      reason: "UnsentClaimExpired",
    });
    expect(aSummary.results[0]).toMatchObject({ outcome: "skipped", reason: "ClaimLost" });
    expect(aSummary.failed).toBe(false);
    expect(w.sim.renewCallsFor(NAME)).toBe(1);
  });
});
