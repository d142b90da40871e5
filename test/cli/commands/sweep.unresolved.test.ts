import { afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import {
  INVENTORY_TABLE,
  tableInventory,
} from "../../../shared/adapters/storage/tableInventory.js";
import { tableLedger } from "../../../shared/adapters/storage/tableLedger.js";
import type { LedgerOutcome } from "../../../shared/core/ports/ledger.js";
import { type Simulator, startSimulator } from "../../../sim/index.js";
import { cliAgainst, jsonOf, seeds } from "../../support/cli.js";
import { ensureBuilt } from "../../support/cliBuild.js";

/**
 * A sweep that finds a certificate waiting behind a request whose answer is unknown
 * (a row "sent" or "answer-unknown" left by a sweep that crashed) names it in its text and its
 * --json `unresolved`, asks again an hour after the request, and exits 1 while one an hour old
 * or more is not asked again.
 */

interface SweepDocument {
  failed: boolean;
  problems: string[];
  results: { certificateName: string; outcome: string; reason: string }[];
  unresolved: { name: string; since: string; runId?: string; overdue: boolean }[];
}

let sim: Simulator;
beforeAll(() => ensureBuilt(), 120_000);
afterEach(() => sim?.close());

const MINUTE = 60_000;
const RUN_ID = "0b7c6f1e-2d4a-4c8e-9f3a-5e6d7c8b9a01";
const idBase = () => 100_000 + Math.floor(Math.random() * 800_000) * 10;
const env = () => ({ AzureWebJobsStorage: inject("azuriteTableConnectionString") });

/** The row a crashed sweep (run RUN_ID) leaves: `outcome`, its request `minutesAgo`. */
async function crashedRow(name: string, outcome: LedgerOutcome, minutesAgo: number) {
  const cert = sim.certificates().find((c) => c.certificateName === name);
  if (!cert) throw new Error(`no ${name}`);
  const ledger = tableLedger({
    connectionString: inject("azuriteTableConnectionString"),
    tableName: "certschedrenewals",
  });
  await ledger.open();
  const at = new Date(Date.now() - minutesAgo * MINUTE);
  await ledger.write(
    {
      id: cert.id,
      certificateName: name,
      expiryAtRequest: cert.expiryDate,
      firstRequestedAt: at,
      lastRequestedAt: at,
      outcome,
      attempts: 1,
      detail: undefined,
      claimedAt: at,
      reason: "NewRenewal",
      runId: RUN_ID,
    },
    undefined,
  );
  return at.toISOString();
}

describe("certsched sweep and a renewal whose answer is unknown", () => {
  it("sent 30 min ago: skipped, named in the text and in --json unresolved; exit 0", async () => {
    const base = idBase();
    sim = await startSimulator({ certificates: seeds(base, [3, 5]) });
    const waiting = `cert-${base}`;
    const since = await crashedRow(waiting, "sent", 30);

    const json = await cliAgainst(sim, ["sweep", "--json"], { env: env() });

    expect(json.code, `${json.stderr}\n${json.stdout}`).toBe(0);
    const doc = jsonOf<SweepDocument>(json);
    expect(doc.unresolved).toEqual([{ name: waiting, since, runId: RUN_ID, overdue: false }]);
    expect(doc.results.map((r) => [r.certificateName, r.outcome, r.reason])).toEqual([
      [waiting, "skipped", "AnswerUnknown"],
      [`cert-${base + 1}`, "renewal-scheduled", "NewRenewal"],
    ]);
    expect(sim.renewCallsFor(waiting)).toBe(0);

    const human = await cliAgainst(sim, ["sweep"], { env: { ...env(), COLUMNS: "300" } });
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(
      "1 certificate(s) not asked for: the answer to their last renewal request is unknown",
    );
    expect(human.stdout).toContain(`- ${waiting}: sent ${since} by run ${RUN_ID}`);
  });

  it("sent an hour ago, still listed with the same expiry: asked again (AnswerUnknownExpired); exit 0", async () => {
    const base = idBase();
    sim = await startSimulator({ certificates: seeds(base, [3]) });
    const name = `cert-${base}`;
    await crashedRow(name, "answer-unknown", 61);

    const json = await cliAgainst(sim, ["sweep", "--json"], { env: env() });

    expect(json.code, `${json.stderr}\n${json.stdout}`).toBe(0);
    const doc = jsonOf<SweepDocument>(json);
    expect(doc.results[0]).toMatchObject({
      outcome: "renewal-scheduled",
      reason: "AnswerUnknownExpired",
    });
    expect(doc.unresolved).toEqual([]);
    expect(sim.renewCallsFor(name)).toBe(1);
  });

  it("sent an hour ago and not asked again (its preflight blocks it): named overdue, exit 1", async () => {
    const base = idBase();
    sim = await startSimulator({ certificates: seeds(base, [3]) });
    const name = `cert-${base}`;
    const since = await crashedRow(name, "sent", 61);
    const inventory = tableInventory({
      connectionString: inject("azuriteTableConnectionString"),
      tableName: INVENTORY_TABLE,
    });
    const at = new Date(Date.now() - MINUTE);
    await inventory.upsert([{ certificateName: name, source: "due-list", seenAt: at }]);
    await inventory.recordPreflight(name, {
      at,
      status: "will-fail",
      rootDomain: "contoso.com",
      checks: [{ check: "caa", status: "fail", reason: "caa-forbids", detail: "0 issue" }],
    });

    const json = await cliAgainst(sim, ["sweep", "--json"], { env: env() });

    expect(json.code).toBe(1);
    const doc = jsonOf<SweepDocument>(json);
    expect(doc.unresolved).toEqual([{ name, since, runId: RUN_ID, overdue: true }]);
    expect(doc.problems).toContain(
      `1 certificate(s) still due an hour or more after a renewal request whose answer is unknown (a sweep that crashed or timed out), not asked again this run: ${name} (sent ${since})`,
    );
    expect(sim.renewCallsFor(name)).toBe(0);
  });
});
