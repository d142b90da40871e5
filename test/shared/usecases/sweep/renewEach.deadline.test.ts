import { afterEach, describe, expect, inject, it } from "vitest";
import { renewDueCertificates } from "../../../../functions/renewDueCertificates.js";
import { tableLedger } from "../../../../shared/adapters/storage/tableLedger.js";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import type { AccountPorts } from "../../../../shared/app/services.js";
import type { CertificateRecord } from "../../../../shared/core/certificate/records.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import type { SendingOptions } from "../../../../shared/core/ports/service.js";
import { ConfigError, SweepFailedError } from "../../../../shared/lib/errors.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { type Simulator, startSimulator } from "../../../../sim/index.js";
import {
  type AppHarness,
  collectingLogger,
  leaksIn,
  runtimeFor,
  startHarness,
  uniqueTableName,
} from "../../../support/app.js";
import { timer } from "../../../support/invoke.js";
import { type RenewDueOptions, renewDueWith } from "../../../support/renewDue.js";

const inDays = (days: number) => new Date(Date.now() + (days + 0.5) * DAY_MS);
const NAMES = ["c0", "c1", "c2", "c3", "c4", "c5"];
const certificates = () =>
  NAMES.map((certificateName) => ({ certificateName, expiryDate: inDays(4) }));

describe("the sweep's deadline, reached while renewals are in flight", () => {
  let sim: Simulator;
  let runtime: AccountPorts;
  const logs: string[] = [];
  afterEach(async () => {
    expect(leaksIn(sim, logs)).toEqual([]);
    await runtime.close();
    await sim.close();
  });

  it("starts no renewal after it; in-flight ones end on their own timeout; the rest are named", async () => {
    sim = await startSimulator({ completionDelayMs: 30 * 60_000, certificates: certificates() });
    // The second renewal hangs past the HTTP timeout: it ends on its own timeout, not the sweep's.
    sim.inject("publicRenew", { delayMs: 3_000, onCall: 2 });
    runtime = runtimeFor(sim, { CERTSCHED_HTTP_TIMEOUT: "1s" });
    const ledger = memoryLedger();
    const deadline = new AbortController();
    let started = 0;
    // The deadline passes the moment the second renewal goes out: a point the test controls,
    // not a race with the clock.
    const client: RenewDueOptions["client"] = {
      listDue: () => runtime.client.listDue(),
      renewListed: (certificate: CertificateRecord, options?: SendingOptions) => {
        started += 1;
        if (started === 2) deadline.abort();
        return runtime.client.renewListed(certificate, options);
      },
    };
    const { log, lines } = collectingLogger();

    const summary = await renewDueWith({
      client,
      ledger,
      log,
      now: () => new Date(),
      concurrency: 2,
      graceMs: 2 * 3_600_000,
      dryRun: false,
      deadline: deadline.signal,
    });
    logs.push(...lines.map((l) => l.message));

    const byName = Object.fromEntries(summary.results.map((r) => [r.certificateName, r]));
    expect(byName.c0).toMatchObject({ outcome: "renewal-scheduled" });
    expect(byName.c1).toMatchObject({ outcome: "failed", error: "UPSTREAM_TIMEOUT" });
    for (const name of ["c2", "c3", "c4", "c5"]) {
      expect(byName[name], name).toMatchObject({
        outcome: "not-attempted",
        reason: "DeadlinePassed",
        detail: expect.stringContaining("CERTSCHED_SWEEP_DEADLINE"),
      });
      expect(sim.renewCallsFor(name), name).toBe(0);
    }
    expect(summary.counts).toMatchObject({ due: 6, "not-attempted": 4 });
    expect(summary.failed).toBe(true);
    expect(summary.problems).toEqual([
      "1 renewal(s) failed: c1",
      "4 certificate(s) not attempted, the sweep reached its deadline (CERTSCHED_SWEEP_DEADLINE) first: c2, c3, c4, c5",
    ]);
    // The request that timed out may have been acted on: the ledger says so.
    const c1 = sim.certificates().find((c) => c.certificateName === "c1");
    expect((await ledger.read(c1?.id ?? -1))?.record.outcome).toBe("answer-unknown");
    const names = (
      await Promise.all(
        sim.certificates().map(async (c) => [c.certificateName, await ledger.read(c.id)] as const),
      )
    ).filter(([, entry]) => entry !== undefined);
    expect(names.map(([name]) => name).sort()).toEqual(["c0", "c1"]);
  });
});

describe("CERTSCHED_SWEEP_DEADLINE on the timer, scaled down, with a delay fault", () => {
  let app: AppHarness;
  afterEach(async () => {
    expect(app.leaks()).toEqual([]);
    await app.close();
  });

  it("renews what it started, reports the others not-attempted by name, and fails the run", async () => {
    app = await startHarness({ completionDelayMs: 30 * 60_000, certificates: certificates() });
    // The first two renewals take longer than the deadline; nothing else can start before it.
    app.sim.inject("publicRenew", { delayMs: 4_000, times: 2 });
    await app.configure(
      { CERTSCHED_SWEEP_DEADLINE: "2s", CERTSCHED_RENEWAL_CONCURRENCY: "2" },
      {
        ledger: tableLedger({
          connectionString: inject("azuriteTableConnectionString"),
          tableName: uniqueTableName("deadline"),
        }),
      },
    );

    const error = await renewDueCertificates(timer(), app.context("renewDueCertificates")).catch(
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(SweepFailedError);
    const renewed = NAMES.filter((name) => app.sim.renewCallsFor(name) === 1);
    const others = NAMES.filter((name) => !renewed.includes(name));
    expect(renewed).toHaveLength(2);
    for (const name of others) expect(app.sim.renewCallsFor(name), name).toBe(0);
    expect((error as Error).message).toBe(
      `certsched renewal sweep failed: 4 certificate(s) not attempted, the sweep reached its deadline (CERTSCHED_SWEEP_DEADLINE) first: ${others.join(", ")}`,
    );
    for (const name of others) {
      expect(app.logs).toContainEqual(
        expect.objectContaining({
          level: "error",
          message: expect.stringMatching(
            new RegExp(`^certsched certificate not-attempted: ${name} .*\\[DeadlinePassed\\]$`),
          ),
        }),
      );
    }
    for (const name of renewed) {
      expect(app.logs).toContainEqual(
        expect.objectContaining({
          message: expect.stringMatching(
            new RegExp(`^certsched certificate renewal-scheduled: ${name} `),
          ),
        }),
      );
    }
  });
});

describe("CERTSCHED_SWEEP_DEADLINE setting", () => {
  const env = (value?: string) => ({
    CERTSCHED_BASE_URL: "https://certs.example.com",
    CERTSCHED_TENANT_ID: "tenant-1",
    CERTSCHED_CLIENT_ID: "client-1",
    CERTSCHED_CLIENT_SECRET: "client-secret-value-1",
    ...(value === undefined ? {} : { CERTSCHED_SWEEP_DEADLINE: value }),
  });

  it.each([
    [undefined, 9 * 60_000],
    ["1s", 1_000],
    ["PT20M", 20 * 60_000],
    ["24h", 86_400_000],
  ])("%s is %i ms", (value, ms) => {
    expect(loadSettings(env(value)).sweepDeadlineMs).toBe(ms);
  });

  it.each(["999ms", "0s", "25h", "soon"])("refuses %s, naming the setting", (value) => {
    let thrown: unknown;
    try {
      loadSettings(env(value));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).problems.map((p) => p.name)).toEqual([
      "CERTSCHED_SWEEP_DEADLINE",
    ]);
  });
});
