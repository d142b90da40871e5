import { TableClient } from "@azure/data-tables";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { HISTORY_TABLE } from "../../../shared/adapters/storage/tableHistory.js";
import { tableLedger } from "../../../shared/adapters/storage/tableLedger.js";
import { type Simulator, sandboxSettings, startSimulator } from "../../../sim/index.js";
import { type AzuriteHandle, startAzurite } from "../../support/azurite.js";
import { cliAgainst, inDays, jsonOf, secretsOf } from "../../support/cli.js";
import { ensureBuilt, runCli } from "../../support/cliBuild.js";
import { runInTerminal, screenLines } from "../../support/terminal.js";

/**
 * certsched status, history and runs end to end: the built CLI as child processes, the
 * simulator as the service and an Azurite of this file's own as the app's storage.
 */

const REFUSAL = "Renewal refused: DNS zone 'contoso-dns' not found in resource group 'rg-dns'";

let azurite: AzuriteHandle;
let sim: Simulator | undefined;

beforeAll(async () => {
  await ensureBuilt();
  azurite = await startAzurite();
}, 120_000);
afterAll(() => azurite?.stop());
afterEach(async () => {
  // No row the CLI or the app wrote carries a secret of the service's.
  if (sim) {
    const rows = await storedRows();
    for (const secret of secretsOf(sim)) expect(rows).not.toContain(secret);
  }
  await sim?.close();
  sim = undefined;
});

async function storedRows(): Promise<string> {
  const client = TableClient.fromConnectionString(azurite.connectionString, HISTORY_TABLE, {
    allowInsecureConnection: true,
  });
  const rows: unknown[] = [];
  try {
    for await (const row of client.listEntities()) rows.push(row);
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode !== 404) throw error;
  }
  return JSON.stringify(rows);
}

const storage = () => ({ AzureWebJobsStorage: azurite.connectionString });
const unique = () => `${Math.floor(Math.random() * 1e9)}`;
let nextId = 100_000 + Math.floor(Math.random() * 800_000) * 10;
/** Ids of their own: the ledger in this file's Azurite is keyed by id and shared by its tests. */
const id = () => {
  nextId += 1;
  return nextId;
};

interface StatusDocument {
  service: string;
  requests7d: number | null;
  certificates: {
    certificateName: string;
    status: string;
    why: string;
    expiry: { service: string | null; serviceDaysLeft: number | null; served: string | null };
    ledger: {
      outcome: string;
      reason: string | null;
      attempts: number;
      stuck: boolean;
      current: boolean;
      detail: string | null;
    } | null;
  }[];
  invalid: string[];
}

describe("certsched renew, sweep, status, history and runs over one storage", () => {
  it("a renewal by hand is recorded, honoured by the next sweep, and shown by status, history and runs", async () => {
    const u = unique();
    const www = `www-${u}`;
    const intranet = `intranet-${u}`;
    sim = await startSimulator({
      completionDelayMs: 30 * 60_000,
      certificates: [
        { id: id(), certificateName: www, expiryDate: inDays(5.5) },
        { id: id(), certificateName: intranet, expiryDate: inDays(8.5), refuseRenewal: REFUSAL },
      ],
    });

    const renew = await cliAgainst(sim, ["renew", www], { env: storage() });
    const sweep = await cliAgainst(sim, ["sweep", "--json"], { env: storage() });
    const status = await cliAgainst(sim, ["status", www, intranet, "--json"], { env: storage() });
    const history = await cliAgainst(sim, ["history", www, "--json"], { env: storage() });
    const runs = await cliAgainst(sim, ["runs", "--last", "1", "--json"], { env: storage() });

    expect(renew.code).toBe(0);
    expect(sweep.code).toBe(1); // the refusal
    expect(sim.renewCallsFor(www)).toBe(1); // the operator's, no more
    const results = jsonOf<{
      results: { certificateName: string; outcome: string; reason: string }[];
    }>(sweep).results;
    expect(results.find((r) => r.certificateName === www)).toMatchObject({
      outcome: "skipped",
      reason: "WithinGrace",
    });

    expect(status.code).toBe(0);
    const doc = jsonOf<StatusDocument>(status);
    expect(doc.service).toBe("reachable");
    expect(doc.invalid).toEqual([]);
    expect(doc.certificates).toEqual([
      expect.objectContaining({
        certificateName: intranet,
        status: "failed",
        why: expect.stringContaining("DNS zone 'contoso-dns' not found"),
        expiry: expect.objectContaining({ serviceDaysLeft: 8 }),
        ledger: expect.objectContaining({
          outcome: "failed",
          reason: "NewRenewal",
          attempts: 1,
          stuck: false,
          current: true,
          detail: expect.stringContaining("DNS zone 'contoso-dns' not found"),
        }),
      }),
      expect.objectContaining({
        certificateName: www,
        status: "pending",
        expiry: expect.objectContaining({ serviceDaysLeft: 5 }),
        ledger: expect.objectContaining({
          outcome: "renewal-scheduled",
          reason: "ManualRequest",
          attempts: 1,
          stuck: false,
        }),
      }),
    ]);

    expect(history.code).toBe(0);
    const events = jsonOf<{ events: { event: string; trigger: string; by?: string }[] }>(
      history,
    ).events;
    expect(events.map((e) => [e.event, e.trigger, e.by])).toEqual([
      ["skipped", "cli", undefined],
      ["renewal-scheduled", "cli", undefined],
      ["manual-request", "cli", "cli"],
    ]);

    expect(runs.code).toBe(0);
    expect(jsonOf<{ runs: unknown[] }>(runs).runs).toEqual([
      expect.objectContaining({
        trigger: "cli",
        failed: true,
        dryRun: false,
        counts: expect.objectContaining({ due: 2, failed: 1, skipped: 1 }),
        problems: [`1 renewal(s) failed: ${intranet}`],
      }),
    ]);
  });

  it("tables fit 80 columns in a terminal, with causes in full under them", async () => {
    const u = unique();
    const long = `a-certificate-with-a-rather-long-name-that-will-not-fit-${u}`;
    sim = await startSimulator({
      certificates: [
        { id: id(), certificateName: long, expiryDate: inDays(3.5), refuseRenewal: REFUSAL },
      ],
    });
    const env = { ...sandboxSettings(sim), ...storage() };
    await runCli(["sweep"], { env });

    const cases: [string[], string][] = [
      [["status", long], REFUSAL],
      [["history", long], REFUSAL],
      [["runs", "--last", "3"], `1 renewal(s) failed: ${long}`],
    ];
    for (const [args, cause] of cases) {
      const result = await runInTerminal(args, { columns: 80, env });
      expect(result.code, args.join(" ")).toBe(0);
      for (const secret of secretsOf(sim)) expect(result.raw).not.toContain(secret);
      const lines = screenLines(result.raw).filter((l) => l !== "");
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
      // Wrapped, not cut: the whole cause reads back once the lines are joined.
      expect(lines.join(" ").replace(/\s+/g, " ")).toContain(cause);
    }
  });

  it("status works with only the storage configured, and says where to find production's", async () => {
    sim = await startSimulator({
      certificates: [{ id: id(), certificateName: `x-${unique()}`, expiryDate: inDays(5.5) }],
    });
    await cliAgainst(sim, ["renew", sim.certificates()[0]?.certificateName ?? ""], {
      env: storage(),
    });

    const only = await runCli(["status", "--json"], { env: storage() });
    const none = await runCli(["status"], { env: {} });
    const badSince = await runCli(["history", "--since", "lately"], { env: storage() });
    const badLast = await runCli(["runs", "--last", "0"], { env: storage() });

    expect(only.code).toBe(0);
    const doc = jsonOf<StatusDocument>(only);
    expect(doc.service).toBe("not-configured");
    expect(doc.certificates).toContainEqual(
      expect.objectContaining({
        certificateName: sim.certificates()[0]?.certificateName,
        ledger: expect.objectContaining({ outcome: "renewal-scheduled", reason: "ManualRequest" }),
      }),
    );
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("CERTSCHED_LEDGER_TABLE_URI");
    expect(none.stderr).toContain("DefaultAzureCredential");
    expect(none.stderr).toContain("az login");
    expect(badSince.code).toBe(2);
    expect(badSince.stderr).toContain("--since must be a duration like 30d, 12h or P7D");
    expect(badLast.code).toBe(2);
    expect(badLast.stderr).toContain("--last must be a whole number from 1 to 1000");
  });
});

describe("certsched history and runs --json: the documented shapes", () => {
  const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
  /** The fields `certsched history --help` documents; absent ones are left out, never null. */
  const EVENT_FIELDS = [
    "at",
    "certificateName",
    "id",
    "event",
    "trigger",
    "runId",
    "by",
    "reason",
    "detail",
    "status",
    "error",
    "expiryDate",
    "before",
    "after",
  ];

  it("history: { events, receipts, invalid }, each event with the documented fields; runs: { runs, invalid }", async () => {
    const u = unique();
    const refused = `refused-${u}`;
    sim = await startSimulator({
      certificates: [
        { id: id(), certificateName: refused, expiryDate: inDays(4.5), refuseRenewal: REFUSAL },
      ],
    });
    await cliAgainst(sim, ["sweep"], { env: storage() });

    const history = await cliAgainst(sim, ["history", refused, "--since", "1h", "--json"], {
      env: storage(),
    });
    const runs = await cliAgainst(sim, ["runs", "--last", "1", "--json"], { env: storage() });

    expect(history.code).toBe(0);
    const doc = jsonOf<{ events: Record<string, unknown>[]; invalid: string[] }>(history);
    expect(Object.keys(doc).sort()).toEqual(["events", "invalid", "receipts"]);
    expect(doc.invalid).toEqual([]);
    expect(doc.events).toHaveLength(1);
    const [event] = doc.events;
    for (const key of Object.keys(event ?? {})) expect(EVENT_FIELDS).toContain(key);
    expect(event).toEqual({
      at: expect.stringMatching(ISO_UTC),
      certificateName: refused,
      id: sim.certificates()[0]?.id,
      event: "failed",
      trigger: "cli",
      runId: expect.any(String),
      reason: "NewRenewal",
      detail: expect.stringContaining(REFUSAL),
      status: 400,
      error: "UPSTREAM_REJECTED",
      expiryDate: expect.stringMatching(ISO_UTC),
    });

    expect(runs.code).toBe(0);
    const runsDoc = jsonOf<{ runs: Record<string, unknown>[]; invalid: string[] }>(runs);
    expect(Object.keys(runsDoc).sort()).toEqual(["invalid", "runs"]);
    expect(runsDoc.runs).toHaveLength(1);
    expect(Object.keys(runsDoc.runs[0] ?? {}).sort()).toEqual([
      "counts",
      "dryRun",
      "failed",
      "finishedAt",
      "ledger",
      "problems",
      "runId",
      "startedAt",
      "trigger",
    ]);
    expect(runsDoc.runs[0]).toMatchObject({
      runId: event?.runId,
      startedAt: expect.stringMatching(ISO_UTC),
      finishedAt: expect.stringMatching(ISO_UTC),
      ledger: "table",
      failed: true,
    });
  });

  it("an empty history: one document, still", async () => {
    sim = await startSimulator({ certificates: [] });

    const history = await cliAgainst(sim, ["history", `never-${unique()}`, "--json"], {
      env: storage(),
    });

    expect(history.code).toBe(0);
    expect(jsonOf(history)).toEqual({ events: [], receipts: [], invalid: [] });
  });
});

describe("certsched status and a stuck certificate", () => {
  it("flags a certificate still due a day after its first request as stuck, as the next sweep would", async () => {
    const name = `stuck-${unique()}`;
    sim = await startSimulator({
      certificates: [{ id: id(), certificateName: name, expiryDate: inDays(4.5) }],
    });
    const cert = sim.certificates()[0];
    if (!cert) throw new Error("no certificate");
    // What a sweep wrote 25 hours ago (the CLI child reads the real clock, so the row is dated).
    const ledger = tableLedger({ connectionString: azurite.connectionString });
    await ledger.open();
    const dayAgo = new Date(Date.now() - 25 * 3_600_000);
    await ledger.write(
      {
        id: cert.id,
        certificateName: name,
        expiryAtRequest: cert.expiryDate,
        firstRequestedAt: dayAgo,
        lastRequestedAt: dayAgo,
        outcome: "renewal-scheduled",
        attempts: 1,
        detail: "scheduled",
        reason: "NewRenewal",
      },
      undefined,
    );

    const json = await cliAgainst(sim, ["status", name, "--json"], { env: storage() });
    const text = await cliAgainst(sim, ["status", name], { env: storage() });

    expect(jsonOf<StatusDocument>(json).certificates).toEqual([
      expect.objectContaining({
        certificateName: name,
        status: "stuck",
        ledger: expect.objectContaining({ outcome: "renewal-scheduled", stuck: true }),
      }),
    ]);
    expect(text.stdout).toContain(`${name} stuck [renewal-scheduled, NewRenewal]: still due since`);
    expect(sim.requests.filter((r) => r.operation !== "list" && r.operation !== "token")).toEqual(
      [],
    );
  });
});

describe("certsched renew with several names and --all-due", () => {
  it("renews each name, reports each, and exits 1 when one failed", async () => {
    const u = unique();
    sim = await startSimulator({
      certificates: [
        { id: id(), certificateName: `a-${u}`, expiryDate: inDays(5.5) },
        { id: id(), certificateName: `b-${u}`, expiryDate: inDays(40) },
      ],
    });

    const result = await cliAgainst(sim, ["renew", `a-${u}`, `b-${u}`, `nope-${u}`, "--json"], {
      env: storage(),
    });

    expect(result.code).toBe(1);
    expect(jsonOf(result)).toEqual({
      results: [
        { certificateName: `a-${u}`, status: "scheduled", message: expect.any(String) },
        { certificateName: `b-${u}`, status: "scheduled", message: expect.any(String) },
        {
          certificateName: `nope-${u}`,
          status: "failed",
          error: "UPSTREAM_REJECTED",
          message: expect.stringContaining(`Certificate nope-${u} not found`),
        },
      ],
      failed: 1,
    });
    expect(sim.renewCallsFor(`a-${u}`)).toBe(1);
    expect(sim.renewCallsFor(`b-${u}`)).toBe(1);
  });

  it("--all-due renews exactly what the due list names, recorded, so a sweep right after orders nothing", async () => {
    const u = unique();
    sim = await startSimulator({
      completionDelayMs: 30 * 60_000,
      certificates: [
        { id: id(), certificateName: `due1-${u}`, expiryDate: inDays(2.5) },
        { id: id(), certificateName: `due2-${u}`, expiryDate: inDays(9.5) },
        { id: id(), certificateName: `later-${u}`, expiryDate: inDays(60) },
      ],
    });

    const result = await cliAgainst(sim, ["renew", "--all-due"], { env: storage() });
    const sweep = await cliAgainst(sim, ["sweep", "--json"], { env: storage() });

    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Renewal of due1-${u} scheduled`);
    expect(result.stdout).toContain(`Renewal of due2-${u} scheduled`);
    expect(sim.renewCallsFor(`later-${u}`)).toBe(0);
    expect(sweep.code).toBe(0);
    expect(sim.requestsFor("publicRenew")).toEqual([]);
    expect(sim.renewCallsFor(`due1-${u}`)).toBe(1);
  });
});
