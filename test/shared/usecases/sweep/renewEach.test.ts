import { afterEach, describe, expect, inject, it } from "vitest";
import { tableLedger } from "../../../../shared/adapters/storage/tableLedger.js";
import type { AccountPorts } from "../../../../shared/app/services.js";
import type { CertificateRecord } from "../../../../shared/core/certificate/records.js";
import { type Ledger, memoryLedger } from "../../../../shared/core/ports/ledger.js";
import type { SendingOptions } from "../../../../shared/core/ports/service.js";
import type { CertificateResult } from "../../../../shared/core/renewal/summary.js";
import { CertschedError } from "../../../../shared/lib/errors.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import {
  type SeedCertificate,
  type Simulator,
  startSimulator,
  toCertificateRecord,
} from "../../../../sim/index.js";
import { collectingLogger, leaksIn, runtimeFor, uniqueTableName } from "../../../support/app.js";
import { type RenewDueOptions, renewDueWith } from "../../../support/renewDue.js";

const inDays = (days: number) => new Date(Date.now() + (days + 0.5) * DAY_MS);
const REFUSAL = "Renewal refused: DNS zone 'contoso-dns' not found in resource group 'rg-dns'";

let sim: Simulator;
let runtime: AccountPorts;
let logs: string[];

afterEach(async () => {
  expect(leaksIn(sim, logs)).toEqual([]);
  await runtime.close();
  await sim.close();
});

async function start(certificates: SeedCertificate[], latencyMs = 0) {
  sim = await startSimulator({ completionDelayMs: 30 * 60_000, latencyMs, certificates });
  runtime = runtimeFor(sim);
  logs = [];
}

function sweep(options: Partial<RenewDueOptions> = {}) {
  const { log, lines } = collectingLogger();
  const run = renewDueWith({
    client: runtime.client,
    ledger: memoryLedger(),
    log,
    now: () => new Date(),
    concurrency: 4,
    graceMs: 2 * 3_600_000,
    dryRun: false,
    ...options,
  });
  return run.then((summary) => {
    logs.push(...lines.map((l) => l.message));
    return { summary, lines };
  });
}

const outcomes = (results: readonly CertificateResult[]) =>
  Object.fromEntries(results.map((r) => [r.certificateName, r.outcome]));

const MIXED: SeedCertificate[] = [
  { certificateName: "due-a", expiryDate: inDays(5) },
  { certificateName: "refused", expiryDate: inDays(8), refuseRenewal: REFUSAL },
  { certificateName: "due-b", target: "Cloud Key Vault + DNS", expiryDate: inDays(-1) },
  { certificateName: "pending", expiryDate: inDays(12) },
  { certificateName: "not-due", expiryDate: inDays(45) },
];

describe("runSweep against the simulator", () => {
  it("renews what is due, records the refusal, skips what is pending, and fails the run", async () => {
    await start(MIXED);
    const ledger = memoryLedger();
    // "pending" was asked for 20 minutes ago by an earlier sweep.
    const pending = sim.certificates().find((c) => c.certificateName === "pending");
    if (!pending) throw new Error("no pending certificate");
    const earlier = new Date(Date.now() - 20 * 60_000);
    await ledger.write(
      {
        id: pending.id,
        certificateName: "pending",
        expiryAtRequest: pending.expiryDate,
        firstRequestedAt: earlier,
        lastRequestedAt: earlier,
        outcome: "renewal-scheduled",
        attempts: 1,
        detail: undefined,
      },
      undefined,
    );

    const { summary, lines } = await sweep({ ledger });

    expect(outcomes(summary.results)).toEqual({
      "due-a": "renewal-scheduled",
      refused: "failed",
      "due-b": "renewal-scheduled",
      pending: "skipped",
    });
    expect(summary.counts).toEqual({
      due: 4,
      "renewal-scheduled": 2,
      "would-renew": 0,
      skipped: 1,
      failed: 1,
      stuck: 0,
      blocked: 0,
      "not-attempted": 0,
      deferred: 0,
      waiting: 0,
      disabled: 0,
    });
    expect(summary.failed).toBe(true);
    expect(summary.problems).toEqual(["1 renewal(s) failed: refused"]);
    expect(summary.results.find((r) => r.certificateName === "refused")).toMatchObject({
      status: 400,
      error: "UPSTREAM_REJECTED",
      detail: expect.stringContaining(REFUSAL),
    });
    expect(summary.results.find((r) => r.certificateName === "due-b")?.daysLeft).toBe(-1);
    expect(sim.renewCallsFor("due-a")).toBe(1);
    expect(sim.renewCallsFor("due-b")).toBe(1);
    expect(sim.renewCallsFor("pending")).toBe(0);
    expect(sim.renewCallsFor("not-due")).toBe(0);
    // The refusal is in the ledger, so the next sweep retries it at once.
    const refused = sim.certificates().find((c) => c.certificateName === "refused");
    expect((await ledger.read(refused?.id ?? -1))?.record).toMatchObject({
      outcome: "failed",
      attempts: 1,
      firstRequestedAt: undefined,
      detail: expect.stringContaining(REFUSAL),
    });
    // One line per certificate and one summary, errors as errors.
    expect(lines.filter((l) => l.message.startsWith("certsched certificate "))).toHaveLength(4);
    expect(lines.at(-1)).toMatchObject({
      level: "error",
      message: expect.stringMatching(/^certsched sweep summary \{/),
    });
  });

  it("one failure never stops the others: a 401 and a 400 among successes", async () => {
    await start(
      Array.from({ length: 6 }, (_, i) => ({ certificateName: `c${i}`, expiryDate: inDays(3) })),
    );
    // A 401 is retried once with fresh tokens: both answers refuse, so c1 fails.
    sim.inject("publicRenew", { status: 401, body: "Authorization failed", onCall: 2 });
    sim.inject("publicRenew", { status: 401, body: "Authorization failed", onCall: 3 });
    sim.inject("publicRenew", { status: 400, body: "Certificate busy", onCall: 5 });

    const { summary } = await sweep({ concurrency: 1 });

    expect(summary.results.map((r) => r.outcome)).toEqual([
      "renewal-scheduled",
      "failed",
      "renewal-scheduled",
      "failed",
      "renewal-scheduled",
      "renewal-scheduled",
    ]);
    expect(summary.results[1]).toMatchObject({ status: 401, error: "UPSTREAM_UNAUTHORIZED" });
    expect(summary.problems).toEqual(["2 renewal(s) failed: c1, c3"]);
  });

  it("a failed list fails the run, renews nothing, and says why in one line", async () => {
    await start(MIXED);
    sim.inject("list", { status: 400, body: "Processing error: subscription 1001 is locked" });

    const { summary } = await sweep();

    expect(summary.failed).toBe(true);
    expect(summary.results).toEqual([]);
    expect(summary.listError).toMatch(
      /answered 400: Processing error: subscription 1001 is locked/,
    );
    expect(summary.problems).toEqual([summary.listError]);
    expect(sim.requestsFor("publicRenew")).toEqual([]);
  });

  it("an unusable record in the list fails the run but not the others", async () => {
    await start([{ certificateName: "good", expiryDate: inDays(4) }]);
    const [good] = sim.certificates();
    if (!good) throw new Error("no certificate");
    const record = toCertificateRecord(good);
    sim.inject("list", {
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify([record, { ...record, id: "x", certificateName: "broken" }]),
    });

    const { summary } = await sweep();

    expect(outcomes(summary.results)).toEqual({ good: "renewal-scheduled" });
    expect(summary.counts.failed).toBe(1);
    expect(summary.failed).toBe(true);
    expect(summary.problems).toEqual([
      expect.stringMatching(/^record 1 of the list \(broken\) is invalid: id /),
    ]);
  });

  it("renews a certificate listed twice only once", async () => {
    await start([{ certificateName: "twice", expiryDate: inDays(4) }]);
    const [cert] = sim.certificates();
    if (!cert) throw new Error("no certificate");
    const record = toCertificateRecord(cert);
    sim.inject("list", {
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify([record, record]),
    });

    const { summary } = await sweep();

    expect(summary.results).toHaveLength(1);
    expect(sim.renewCallsFor("twice")).toBe(1);
  });

  it("two names sharing one id: the first is renewed, the second rejected by name, the run fails", async () => {
    await start([
      { certificateName: "www-contoso-com", expiryDate: inDays(4) },
      { certificateName: "api-contoso-com", expiryDate: inDays(6) },
    ]);
    const [www, api] = sim.certificates().map(toCertificateRecord);
    if (!www || !api) throw new Error("no certificates");
    const impostor = { ...api, id: www.id };
    sim.inject("list", {
      status: 200,
      headers: { "content-type": "application/json" },
      // The same record twice is one renewal; a different name under that id is not.
      body: JSON.stringify([www, impostor, www]),
    });

    const { summary } = await sweep();

    expect(outcomes(summary.results)).toEqual({ "www-contoso-com": "renewal-scheduled" });
    expect(sim.renewCallsFor("www-contoso-com")).toBe(1);
    expect(sim.renewCallsFor("api-contoso-com")).toBe(0);
    expect(summary.rejected).toEqual([
      {
        index: 1,
        certificateName: "api-contoso-com",
        id: www.id,
        problems: [
          {
            name: "id",
            message: `${www.id} is also the id of record 0 (www-contoso-com): duplicate id, different name; not renewed`,
          },
        ],
      },
    ]);
    expect(summary.counts).toMatchObject({ due: 2, failed: 1, "renewal-scheduled": 1 });
    expect(summary.failed).toBe(true);
    expect(summary.problems).toEqual([
      `record 1 of the list (api-contoso-com) is invalid: id ${www.id} is also the id of record 0 (www-contoso-com): duplicate id, different name; not renewed`,
    ]);
  });

  it("counts list positions past invalid records when naming a duplicate", async () => {
    await start([
      { certificateName: "www-contoso-com", expiryDate: inDays(4) },
      { certificateName: "api-contoso-com", expiryDate: inDays(6) },
    ]);
    const [www, api] = sim.certificates().map(toCertificateRecord);
    if (!www || !api) throw new Error("no certificates");
    sim.inject("list", {
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify([{ ...www, id: "x" }, www, { ...api, id: www.id }]),
    });

    const { summary } = await sweep();

    expect(summary.rejected.map((r) => [r.index, r.certificateName])).toEqual([
      [0, "www-contoso-com"],
      [2, "api-contoso-com"],
    ]);
    expect(summary.problems[1]).toContain("is also the id of record 1 (www-contoso-com)");
  });

  it("a dry run decides, renews nothing, and writes nothing to the ledger", async () => {
    await start(MIXED);
    const ledger = memoryLedger();

    const { summary } = await sweep({ ledger, dryRun: true });

    expect(summary.dryRun).toBe(true);
    expect(summary.results.map((r) => r.outcome)).toEqual([
      "would-renew",
      "would-renew",
      "would-renew",
      "would-renew",
    ]);
    expect(summary.failed).toBe(false);
    expect(sim.requestsFor("publicRenew")).toEqual([]);
    for (const cert of sim.certificates()) expect(await ledger.read(cert.id)).toBeUndefined();
  });

  it("a failed attempt is retried by the next sweep, counting attempts", async () => {
    await start([{ certificateName: "flaky", expiryDate: inDays(4) }]);
    const ledger = memoryLedger();
    sim.inject("publicRenew", { status: 400, body: "Try later" });
    const first = await sweep({ ledger });
    expect(first.summary.results[0]?.outcome).toBe("failed");

    const second = await sweep({ ledger });

    expect(second.summary.results[0]).toMatchObject({ outcome: "renewal-scheduled" });
    const [cert] = sim.certificates();
    expect((await ledger.read(cert?.id ?? -1))?.record).toMatchObject({
      outcome: "renewal-scheduled",
      attempts: 2,
    });
    expect(sim.renewCallsFor("flaky")).toBe(1);
  });

  it("a ledger that fails mid-sweep: nothing more is renewed, each one named, the run fails", async () => {
    await start(MIXED);
    const inner = memoryLedger();
    let reads = 0;
    // The first certificate's read works; from the second on, storage answers 503.
    const failing: Ledger = {
      ...inner,
      kind: "table",
      read: async (id) => {
        reads += 1;
        if (reads > 1) {
          throw new CertschedError("LEDGER_UNAVAILABLE", "renewal ledger: cannot read table (503)");
        }
        return inner.read(id);
      },
    };

    const { summary, lines } = await sweep({ ledger: failing, concurrency: 1 });

    expect(summary.ledger).toBe("unavailable");
    // Most urgent first: due-b (expired a day ago) is the one renewed before the ledger failed.
    expect(outcomes(summary.results)).toEqual({
      "due-b": "renewal-scheduled",
      "due-a": "not-attempted",
      refused: "not-attempted",
      pending: "not-attempted",
    });
    expect(
      summary.results.filter((r) => r.outcome === "not-attempted").map((r) => r.reason),
    ).toEqual(["LedgerUnavailable", "LedgerUnavailable", "LedgerUnavailable"]);
    expect(sim.requestsFor("publicRenew")).toHaveLength(1);
    expect(summary.failed).toBe(true);
    expect(summary.problems).toEqual([
      "renewal ledger unavailable, so no renewal was started after it failed (without it one could be ordered twice): renewal ledger: cannot read table (503)",
      "3 certificate(s) not attempted, the renewal ledger is unavailable: due-a, refused, pending",
    ]);
    expect(lines).toContainEqual({
      level: "error",
      message: expect.stringMatching(
        /^certsched certificate not-attempted: due-a .*\[LedgerUnavailable\]$/,
      ),
    });
  });
});

describe("runSweep concurrency", () => {
  /** The service client, observed: how many renewals are on the wire at once. */
  function observed(rt: AccountPorts) {
    let inFlight = 0;
    let max = 0;
    const client: RenewDueOptions["client"] = {
      listDue: () => rt.client.listDue(),
      renewListed: async (certificate: CertificateRecord, options?: SendingOptions) => {
        inFlight += 1;
        max = Math.max(max, inFlight);
        try {
          return await rt.client.renewListed(certificate, options);
        } finally {
          inFlight -= 1;
        }
      },
    };
    return { client, max: () => max };
  }

  it.each([1, 3])("keeps at most %i renewal(s) in flight", async (concurrency) => {
    // Latency keeps each renewal on the wire long enough for the others to pile up.
    await start(
      Array.from({ length: 10 }, (_, i) => ({ certificateName: `c${i}`, expiryDate: inDays(3) })),
      20,
    );
    const { client, max } = observed(runtime);
    const progress: [string, number, number][] = [];

    const { summary } = await sweep({
      client,
      concurrency,
      onResult: (r, done, total) => progress.push([r.certificateName, done, total]),
    });

    expect(summary.counts["renewal-scheduled"]).toBe(10);
    expect(max()).toBe(concurrency);
    expect(progress.map(([, done, total]) => [done, total])).toEqual(
      Array.from({ length: 10 }, (_, i) => [i + 1, 10]),
    );
    expect(sim.requestsFor("publicRenew")).toHaveLength(10);
    // However many renewals, one token per resource.
    expect(sim.requestsFor("token")).toHaveLength(2);
  });

  it("with the Azurite ledger, concurrency 8 renews each of 20 certificates once", async () => {
    await start(
      Array.from({ length: 20 }, (_, i) => ({ certificateName: `c${i}`, expiryDate: inDays(3) })),
      5,
    );
    const ledger = tableLedger({
      connectionString: inject("azuriteTableConnectionString"),
      tableName: uniqueTableName("sweep"),
    });
    const { client, max } = observed(runtime);

    const { summary } = await sweep({ client, ledger, concurrency: 8 });

    expect(summary).toMatchObject({ ledger: "table", failed: false });
    expect(summary.counts["renewal-scheduled"]).toBe(20);
    expect(max()).toBeLessThanOrEqual(8);
    for (let i = 0; i < 20; i++) expect(sim.renewCallsFor(`c${i}`)).toBe(1);
  });
});
