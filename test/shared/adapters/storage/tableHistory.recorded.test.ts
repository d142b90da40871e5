import { TableClient } from "@azure/data-tables";
import { afterEach, describe, expect, inject, it } from "vitest";
import { cleanupHistory } from "../../../../functions/cleanupHistory.js";
import { renewCertificate } from "../../../../functions/renewCertificate.js";
import { renewDueCertificates } from "../../../../functions/renewDueCertificates.js";
import { runRenewals } from "../../../../functions/runRenewals.js";
import { tableHistory } from "../../../../shared/adapters/storage/tableHistory.js";
import { tableLedger } from "../../../../shared/adapters/storage/tableLedger.js";
import type { CertificateEvent } from "../../../../shared/core/history/events.js";
import type { History } from "../../../../shared/core/ports/history.js";
import type { Ledger } from "../../../../shared/core/ports/ledger.js";
import { OPERATOR } from "../../../../shared/edge/auth/roles.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";
import { SAMPLE_REFUSAL, type SeedCertificate } from "../../../../sim/index.js";
import { type AppHarness, startHarness, uniqueTableName } from "../../../support/app.js";
import { httpRequest, timer } from "../../../support/invoke.js";
import { EASY_AUTH_ON, principalHeader } from "../../../support/principals.js";

const inDays = (days: number) => new Date(Date.now() + (days + 0.5) * DAY_MS);
const REFUSAL = SAMPLE_REFUSAL;

let app: AppHarness;
let ledger: Ledger;
let history: History;
let historyTable: string;
/** The app's clock: tests move it. */
let clock = Date.now();

async function start(certificates: SeedCertificate[], settings: Record<string, string> = {}) {
  clock = Date.now();
  app = await startHarness({ completionDelayMs: 30 * 60_000, certificates });
  const connectionString = inject("azuriteTableConnectionString");
  ledger = tableLedger({ connectionString, tableName: uniqueTableName("ledger") });
  historyTable = uniqueTableName("history");
  history = tableHistory({ connectionString, tableName: historyTable });
  await ledger.open();
  await app.configure(settings, { ledger, history, now: () => new Date(clock) });
}

afterEach(async () => {
  delete process.env.WEBSITE_AUTH_ENABLED;
  expect(app.leaks(await rawRows())).toEqual([]);
  await app.close();
});

/** Every stored history row as JSON text, read past our own mappers. */
async function rawRows(): Promise<string[]> {
  const client = TableClient.fromConnectionString(
    inject("azuriteTableConnectionString"),
    historyTable,
    { allowInsecureConnection: true },
  );
  const rows: string[] = [];
  try {
    for await (const row of client.listEntities()) rows.push(JSON.stringify(row));
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode !== 404) throw error;
  }
  return rows;
}

function renewByHand(name: string, headers: Record<string, string> = {}) {
  return app.call(
    renewCertificate,
    httpRequest({ path: `certificates/${name}/renew`, params: { name }, headers }),
  );
}

function sweep(): Promise<unknown> {
  return renewDueCertificates(timer(), app.context("renewDueCertificates")).catch((e) => e);
}

const idOf = (name: string) => app.sim.certificates().find((c) => c.certificateName === name)?.id;

async function eventsOf(name?: string): Promise<CertificateEvent[]> {
  const read = await history.events({ certificateName: name, since: new Date(0) });
  expect(read.invalid).toEqual([]);
  return read.items;
}

describe("manual renewals are recorded", () => {
  it("a renewal by hand is in the ledger, so the next sweep does not order it again", async () => {
    await start([{ certificateName: "www-contoso-com", expiryDate: inDays(5) }]);

    const reply = await renewByHand("www-contoso-com");
    clock += HOUR_MS; // within the 2 h grace
    await sweep();

    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({
      account: "default",
      status: "scheduled",
      certificateName: "www-contoso-com",
      message: "Certificate www-contoso-com is scheduled for update.",
    });
    expect(app.sim.renewCallsFor("www-contoso-com")).toBe(1);
    expect((await ledger.read(idOf("www-contoso-com") ?? 0))?.record).toMatchObject({
      outcome: "renewal-scheduled",
      attempts: 1,
      reason: "ManualRequest",
    });
    const events = await eventsOf("www-contoso-com");
    expect(events.map((e) => [e.event, e.trigger, e.by, e.reason])).toEqual([
      ["skipped", "timer", undefined, "WithinGrace"],
      ["renewal-scheduled", "http", undefined, "ManualRequest"],
      ["manual-request", "http", "function-key", "ManualRequest"],
    ]);
    const runs = await history.runs(10);
    expect(runs.items).toMatchObject([
      { trigger: "timer", failed: false, dryRun: false, counts: { due: 1, skipped: 1 } },
    ]);
  });

  it("records the Entra ID principal who asked", async () => {
    await start([{ certificateName: "www-contoso-com", expiryDate: inDays(5) }]);
    Object.assign(process.env, EASY_AUTH_ON);

    const reply = await renewByHand("www-contoso-com", {
      "x-ms-client-principal": principalHeader({
        id: "11111111-2222-3333-4444-555555555555",
        name: "ops@contoso.com",
        roles: [OPERATOR],
      }),
    });

    expect(reply.status).toBe(202);
    const [request] = (await eventsOf()).filter((e) => e.event === "manual-request");
    expect(request?.by).toBe("entra:ops@contoso.com (11111111-2222-3333-4444-555555555555)");
  });

  it("a refused renewal by hand is recorded failed with its status and cause, and retried by the sweep", async () => {
    await start([
      { certificateName: "intranet-contoso-com", expiryDate: inDays(8), refuseRenewal: REFUSAL },
    ]);

    const reply = await renewByHand("intranet-contoso-com");

    expect(reply.status).toBe(422);
    expect((await ledger.read(idOf("intranet-contoso-com") ?? 0))?.record).toMatchObject({
      outcome: "failed",
      attempts: 1,
      lastRequestedAt: undefined,
    });
    const [failed] = await eventsOf("intranet-contoso-com");
    expect(failed).toMatchObject({ event: "failed", status: 400, error: "UPSTREAM_REJECTED" });
    expect(failed?.detail).toContain("DNS zone 'contoso-dns' not found");

    await sweep(); // a refusal ordered nothing: the sweep asks again
    expect(app.sim.requestsFor("publicRenew")).toHaveLength(1);
  });

  it("renews anyway when the look-up fails, and says the next sweep may ask again", async () => {
    await start([{ certificateName: "www-contoso-com", expiryDate: inDays(5) }]);
    app.sim.inject("get", { status: 500, body: "busy", times: 4 });

    const reply = await renewByHand("www-contoso-com");

    expect(reply.status).toBe(202);
    expect(reply.body).toMatchObject({
      status: "scheduled",
      note: expect.stringMatching(
        /^it could not be looked up \(.*\), so the next sweep may ask for it again$/,
      ),
    });
    expect(await ledger.read(idOf("www-contoso-com") ?? 0)).toBeUndefined();
    expect((await eventsOf()).map((e) => e.event)).toEqual(["renewal-scheduled", "manual-request"]);
  });

  it("a renewal by hand after a sweep's unanswered request continues its episode (attempts 2)", async () => {
    await start([{ certificateName: "www-contoso-com", expiryDate: inDays(5) }]);
    const id = idOf("www-contoso-com") ?? 0;
    const cert = app.sim.certificates()[0];
    if (!cert) throw new Error("no certificate");
    // A sweep's "sent" row, written a moment ago: its request may be on the wire.
    await ledger.write(
      {
        id,
        certificateName: cert.certificateName,
        expiryAtRequest: cert.expiryDate,
        firstRequestedAt: new Date(clock),
        lastRequestedAt: new Date(clock),
        outcome: "sent",
        attempts: 1,
        detail: undefined,
        claimedAt: new Date(clock),
        reason: "NewRenewal",
      },
      undefined,
    );

    const reply = await renewByHand("www-contoso-com");

    // A person asked: the "sent" row is claimed over (conditionally), and the request goes out.
    expect(reply.status).toBe(202);
    expect(app.sim.renewCallsFor("www-contoso-com")).toBe(1);
    expect((await ledger.read(id))?.record).toMatchObject({
      outcome: "renewal-scheduled",
      attempts: 2,
    });
  });
});

describe("a renewal by hand racing a sweep", () => {
  it("sends nothing when a sweep's claim lands first, and answers in-progress", async () => {
    await start([{ certificateName: "www-contoso-com", expiryDate: inDays(5) }]);
    const cert = app.sim.certificates()[0];
    if (!cert) throw new Error("no certificate");
    // The real table ledger; a sweep's claim is written just before the manual one's.
    let raced = false;
    const racing: Ledger = {
      ...ledger,
      write: async (record, etag) => {
        if (!raced && record.outcome === "claimed") {
          raced = true;
          await ledger.write({ ...record, reason: "NewRenewal" }, etag);
        }
        return ledger.write(record, etag);
      },
    };
    await app.configure({}, { ledger: racing, history, now: () => new Date(clock) });

    const reply = await renewByHand("www-contoso-com");

    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({
      account: "default",
      status: "in-progress",
      certificateName: "www-contoso-com",
      message: "a sweep is renewing www-contoso-com right now; it was not asked for again",
    });
    expect(app.sim.requestsFor("renew")).toEqual([]);
    expect((await eventsOf()).map((e) => [e.event, e.reason])).toEqual([
      ["skipped", "ClaimLost"],
      ["manual-request", "ManualRequest"],
    ]);
  });
});

describe("sweep history", () => {
  it("records one event per certificate and outcome, and one run row", async () => {
    await start(
      [
        { certificateName: "www-contoso-com", expiryDate: inDays(5) },
        { certificateName: "intranet-contoso-com", expiryDate: inDays(8), refuseRenewal: REFUSAL },
        { certificateName: "old-contoso-com", expiryDate: inDays(3) },
      ],
      { CERTSCHED_RENEWAL_CONCURRENCY: "1" },
    );
    clock -= DAY_MS + HOUR_MS; // renewed by hand yesterday, still due today: stuck
    expect((await renewByHand("old-contoso-com")).status).toBe(202);
    clock += DAY_MS + HOUR_MS;

    await sweep();

    const latest = (name: string) => eventsOf(name).then((events) => events[0]);
    expect(await latest("www-contoso-com")).toMatchObject({
      event: "renewal-scheduled",
      trigger: "timer",
      reason: "NewRenewal",
      detail: "Certificate www-contoso-com is scheduled for renewal.",
    });
    expect(await latest("intranet-contoso-com")).toMatchObject({
      event: "failed",
      status: 400,
      error: "UPSTREAM_REJECTED",
    });
    expect(await latest("old-contoso-com")).toMatchObject({ event: "stuck", reason: "Stuck" });
    const [run] = (await history.runs(1)).items;
    expect(run).toMatchObject({
      trigger: "timer",
      failed: true,
      counts: { due: 3, "renewal-scheduled": 1, failed: 1, stuck: 1 },
      problems: [
        "1 renewal(s) failed: intranet-contoso-com",
        "1 certificate(s) stuck: old-contoso-com",
      ],
    });
    const sweepEvents = (await eventsOf()).filter((e) => e.trigger === "timer");
    expect(new Set(sweepEvents.map((e) => e.runId))).toEqual(new Set([run?.runId]));
  });

  it("records answer-unknown and not-attempted, and an HTTP run's trigger", async () => {
    await start(
      [
        { certificateName: "a-contoso-com", expiryDate: inDays(2) },
        { certificateName: "b-contoso-com", expiryDate: inDays(3) },
      ],
      {
        CERTSCHED_RENEWAL_CONCURRENCY: "1",
        CERTSCHED_HTTP_TIMEOUT: "1s",
        CERTSCHED_SWEEP_DEADLINE: "1s",
      },
    );
    // The first renewal is answered after the timeout, and the deadline passes meanwhile.
    app.sim.inject("publicRenew", { delayMs: 1_500, times: 1 });

    // POST /api/renewals queues the run; the queue trigger sweeps it (here, in this process).
    const reply = await app.call(
      runRenewals,
      httpRequest({ method: "POST", path: "renewals", query: { wait: "30" } }),
    );

    expect(reply.status).toBe(200);
    const kinds = (await eventsOf()).map((e) => e.event).sort();
    expect(kinds).toEqual(["answer-unknown", "not-attempted"]);
    const [run] = (await history.runs(1)).items;
    expect(run).toMatchObject({ trigger: "queue", failed: true });
    // The history's run is the queued run: GET /api/renewals/{runId} and `certsched runs` agree.
    expect(run?.runId).toBe((reply.body as { runId: string }).runId);
  });

  it("a dry run records its run row and no certificate events", async () => {
    await start([{ certificateName: "www-contoso-com", expiryDate: inDays(5) }]);

    await app.call(
      runRenewals,
      httpRequest({ method: "POST", path: "renewals", query: { dryRun: "true", wait: "30" } }),
    );

    expect(await eventsOf()).toEqual([]);
    expect((await history.runs(5)).items).toMatchObject([
      { trigger: "queue", dryRun: true, counts: { "would-renew": 1 } },
    ]);
  });

  it("a history that cannot be written is a warning: the sweep and its outcome are unchanged", async () => {
    await start([{ certificateName: "www-contoso-com", expiryDate: inDays(5) }]);
    const unreachable = tableHistory({
      connectionString:
        "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Zm9v;TableEndpoint=http://127.0.0.1:9/devstoreaccount1",
      tableName: historyTable,
      timeoutMs: 500,
    });
    await app.configure({}, { ledger, history: unreachable, now: () => new Date(clock) });

    const outcome = await sweep();

    expect(outcome).toBeUndefined(); // the timer did not fail
    expect(app.sim.renewCallsFor("www-contoso-com")).toBe(1);
    const warning = app.logs.find((l) => l.message.includes("could not record the run history"));
    expect(warning?.level).toBe("warning");
    expect(app.logs.find((l) => l.message.startsWith("certsched sweep summary "))?.level).toBe(
      "information",
    );
  });
});

describe("no secret in any history row", () => {
  it("an upstream that quotes the API key in its refusal leaves no key in events or runs", async () => {
    await start([]);
    const quoting = `Renewal refused for key ${app.sim.options.apiKey}: quota exceeded`;
    app.sim.addCertificate({
      certificateName: "leaky-contoso-com",
      expiryDate: inDays(4),
      refuseRenewal: quoting,
    });

    expect((await renewByHand("leaky-contoso-com")).status).toBe(422);
    await sweep();

    const rows = await rawRows();
    expect(rows.join("\n")).toContain("quota exceeded"); // the cause is kept...
    expect(app.leaks(rows)).toEqual([]); // ...without the key (afterEach checks again)
    expect((await eventsOf()).filter((e) => e.event === "failed")).toHaveLength(2);
  });
});

describe("history retention", () => {
  it("the daily cleanup removes rows older than CERTSCHED_HISTORY_RETENTION and keeps the boundary", async () => {
    await start([], { CERTSCHED_HISTORY_RETENTION: "30d" });
    const now = clock;
    const at = (msAgo: number) => new Date(now - msAgo);
    const event = (name: string, msAgo: number): CertificateEvent => ({
      at: at(msAgo),
      certificateName: name,
      event: "renewal-scheduled",
      trigger: "timer",
      runId: `run-${name}`,
    });
    const run = (runId: string, msAgo: number) => ({
      runId,
      trigger: "timer" as const,
      startedAt: at(msAgo),
      finishedAt: at(msAgo),
      dryRun: false,
      failed: false,
      ledger: "table",
      counts: { due: 0 },
      problems: [],
    });
    await history.append(
      [event("older", 30 * DAY_MS + 1), event("boundary", 30 * DAY_MS)],
      run("old-run", 31 * DAY_MS),
    );
    await history.append([event("recent", DAY_MS)], run("new-run", 30 * DAY_MS));

    await cleanupHistory(timer(), app.context("cleanupHistory"));

    expect((await eventsOf()).map((e) => e.certificateName).sort()).toEqual(["boundary", "recent"]);
    expect((await history.runs(10)).items.map((r) => r.runId)).toEqual(["new-run"]);
    expect(app.logs.map((l) => l.message)).toContain(
      `certsched history cleanup: removed 2 row(s) from before ${at(30 * DAY_MS).toISOString()}`,
    );
  });
});
