import { afterEach, expect, it } from "vitest";
import { getRenewalRun } from "../../../functions/getRenewalRun.js";
import { renewDueCertificates } from "../../../functions/renewDueCertificates.js";
import { runRenewals } from "../../../functions/runRenewals.js";
import { memoryRunStore } from "../../../shared/adapters/storage/memory/memoryRunStore.js";
import type { Seams } from "../../../shared/app/seams.js";
import { getServices } from "../../../shared/app/services.js";
import { memoryLedger } from "../../../shared/core/ports/ledger.js";
import type { RunQueue } from "../../../shared/core/ports/runQueue.js";
import type { RunMessage } from "../../../shared/core/runs/run.js";
import type { RunView } from "../../../shared/edge/views/runView.js";
import { CertschedError } from "../../../shared/lib/errors.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import { type SimAccounts, startSimAccounts } from "../../support/accounts.js";
import { configureApp, type LogLine, releaseApp } from "../../support/app.js";
import { httpRequest, invocationContext, timer } from "../../support/invoke.js";
import { toReply } from "../../support/reply.js";
import { inDays } from "../../support/runs.js";

/*
 * Fan-out without a storage queue (tests, the sandbox): the in-process queue delivers each
 * account's part in this process with that account's runtime, at most
 * CERTSCHED_ACCOUNT_CONCURRENCY at once.
 */

let accounts: SimAccounts | undefined;
const logs: LogLine[] = [];

afterEach(async () => {
  await getServices().app.runs.settled();
  const texts = logs.map((l) => l.message);
  expect(accounts?.secrets().filter((s) => texts.some((t) => t.includes(s)))).toEqual([]);
  logs.length = 0;
  await releaseApp();
  await accounts?.close();
  accounts = undefined;
});

const context = (name: string) =>
  invocationContext(name, (level, message) => logs.push({ level, functionName: name, message }));

async function get(runId: string): Promise<RunView> {
  const reply = toReply(
    await getRenewalRun(
      httpRequest({ method: "GET", path: `renewals/${runId}`, params: { runId } }),
      context("getRenewalRun"),
    ),
  );
  return reply.body as RunView;
}

type Declare = (declarations: Record<string, unknown>[]) => unknown[];

async function start(count: number, concurrency: number, seams: Seams = {}, declare?: Declare) {
  const names = Array.from({ length: count }, (_, i) => `inproc-${i + 1}`);
  accounts = await startSimAccounts(names, () => ({
    completionDelayMs: 30 * 60_000,
    latencyMs: 40,
    certificates: [{ certificateName: "www-contoso-com", expiryDate: inDays(5) }],
  }));
  const ledgers = new Map(names.map((n) => [n, memoryLedger()]));
  const configure = (with_?: Declare) =>
    configureApp(
      {
        CERTSCHED_ACCOUNTS: JSON.stringify((with_ ?? ((d) => d))(accounts?.declarations() ?? [])),
        CERTSCHED_ACCOUNT_CONCURRENCY: String(concurrency),
      },
      { ledger: (account) => ledgers.get(account) ?? memoryLedger(), ...seams },
    );
  await configure(declare);
  return { names, configure };
}

/** The most parts whose sweeps overlapped in time. */
function mostAtOnce(parts: readonly RunView[]): number {
  const edges = parts.flatMap((p) => [
    { at: Date.parse(p.startedAt ?? ""), step: 1 },
    { at: Date.parse(p.finishedAt ?? ""), step: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let most = 0;
  for (const edge of edges) {
    now += edge.step;
    most = Math.max(most, now);
  }
  return most;
}

it("POST sweeps every account's part in this process, at most CERTSCHED_ACCOUNT_CONCURRENCY at once", async () => {
  const { names } = await start(6, 2);
  const reply = toReply(
    await runRenewals(httpRequest({ path: "renewals" }), context("runRenewals")),
  );
  expect(reply.status).toBe(202);
  const { runId } = reply.body as RunView;
  await getServices().app.runs.settled();

  const view = await get(runId);
  expect(view.state).toBe("succeeded");
  expect(view.parts?.map((p) => p.account)).toEqual(names);
  const parts = await Promise.all((view.parts ?? []).map((p) => get(p.runId)));
  expect(parts.every((p) => p.state === "succeeded")).toBe(true);
  expect(mostAtOnce(parts)).toBe(2);
  for (const name of names) {
    expect(accounts?.sim(name).renewCallsFor("www-contoso-com")).toBe(1);
  }
});

it("the timer queues the run and returns; the parts are swept here, each with its account", async () => {
  const { names } = await start(3, 4);
  await renewDueCertificates(timer(), context("renewDueCertificates"));
  await getServices().app.runs.settled();
  const line = logs.find((l) => l.message.startsWith("certsched timer: run "));
  const runId = /run ([0-9a-f-]{36})/.exec(line?.message ?? "")?.[1] ?? "";
  const view = await get(runId);
  expect(view).toMatchObject({ state: "succeeded", requestedBy: "timer" });
  expect(view.counts).toMatchObject({ due: 3, "renewal-scheduled": 3 });
  for (const name of names) {
    expect(accounts?.sim(name).renewCallsFor("www-contoso-com")).toBe(1);
  }
});

it("an account refused for CERTSCHED_DEAD_ACCOUNT_DAYS days in a row is dead; accepted again, it is not", async () => {
  let now = new Date();
  const start0 = now;
  const store = memoryRunStore();
  const wrongSecret: Declare = (d) =>
    d.map((a) => (a.name === "inproc-1" ? { ...a, clientSecret: "not-this-accounts-secret" } : a));
  const { names, configure } = await start(2, 4, { now: () => now, runs: { store } }, wrongSecret);
  const [refused, healthy] = names as [string, string];
  const runAt = async (days: number) => {
    now = new Date(start0.getTime() + days * DAY_MS);
    const reply = toReply(
      await runRenewals(httpRequest({ path: "renewals" }), context("runRenewals")),
    );
    await getServices().app.runs.settled();
    const view = await get((reply.body as RunView).runId);
    return Object.fromEntries((view.parts ?? []).map((p) => [p.account, p]));
  };

  const first = await runAt(0);
  expect(first[refused]?.status).toBe("credentials-refused");
  expect(first[healthy]?.status).toBe("succeeded");
  expect((await runAt(2.9))[refused]?.status).toBe("credentials-refused");
  const dead = await runAt(3);
  expect(dead[refused]).toMatchObject({ status: "dead", deadSince: start0.toISOString() });
  // The other account is swept as ever (its renewal of day 0 shows as stuck on the fake clock).
  expect(dead[healthy]?.status).not.toMatch(/dead|refused/);
  expect(
    logs.some(
      (l) =>
        l.level === "error" &&
        l.message.startsWith(`certsched account alert: account ${refused}: dead in run `),
    ),
  ).toBe(true);

  // The credentials mended: the stretch ends; a later refusal starts a new one.
  await configure();
  const mended = await runAt(3.5);
  expect(mended[refused]?.status).toBe("succeeded");
  await configure(wrongSecret);
  expect((await runAt(7))[refused]?.status).toBe("credentials-refused");
});

it("a part whose message cannot be sent: 503, that part failed as not queued, the key free again", async () => {
  const sent: RunMessage[] = [];
  const store = memoryRunStore();
  const queue: RunQueue = {
    kind: "storage",
    send: async (message) => {
      if (message.account === "inproc-2") {
        throw new CertschedError("RUNS_UNAVAILABLE", "run queue: cannot send (503)", {
          retriable: true,
        });
      }
      sent.push(message);
    },
  };
  await start(3, 4, { runs: { store, queue } });
  const post = () =>
    runRenewals(
      httpRequest({ path: "renewals", headers: { "idempotency-key": "fan-out-1" } }),
      context("runRenewals"),
    ).then(toReply);

  const reply = await post();
  expect(reply.status).toBe(503);
  expect(reply.body).toMatchObject({ code: "RUNS_UNAVAILABLE" });
  expect(sent.map((m) => m.account).sort()).toEqual(["inproc-1", "inproc-3"]);
  const parentId = sent[0] && (await store.get(sent[0].runId))?.parentRunId;
  const parent = parentId ? await get(parentId) : undefined;
  const byAccount = Object.fromEntries((parent?.parts ?? []).map((p) => [p.account, p]));
  expect(byAccount["inproc-2"]).toMatchObject({ state: "failed", status: "failed" });
  expect(byAccount["inproc-2"]?.problem).toMatch(/^the run could not be queued: /);
  expect(byAccount["inproc-1"]?.state).toBe("queued");
  // The key was released: the same key starts a new run.
  const again = await post();
  expect(again.status).toBe(503);
  expect(sent.filter((m) => m.account === "inproc-1")).toHaveLength(2);
});
