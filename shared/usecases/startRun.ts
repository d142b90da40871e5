import { randomUUID } from "node:crypto";
import type { RunQueue } from "../core/ports/runQueue.js";
import type { KeyEntry, RunStore } from "../core/ports/runStore.js";
import { IDEMPOTENCY_WINDOW_MS } from "../core/runs/idempotencyKey.js";
import type { Run } from "../core/runs/run.js";
import { messageOf } from "../core/runs/runMessage.js";
import { ensureError } from "../lib/errors.js";
import type { Logger } from "../lib/log.js";
import { mapWithConcurrency } from "../lib/pool.js";
import { redact } from "../lib/redact/redact.js";
import { MINUTE_MS } from "../lib/time.js";
import { type SettleContext, settleRun } from "./steps/settleRun.js";

export interface StartRunRequest {
  readonly dryRun: boolean;
  /** Renew also what the last preflight blocks (`?force=true`). */
  readonly force?: boolean | undefined;
  /** "function-key" or "entra:<name> (<object id>)". */
  readonly requestedBy: string;
  /** The Idempotency-Key's hash (idempotencyKeyOf), when the client sent one. */
  readonly keyHash?: string | undefined;
  readonly now: Date;
  /**
   * The declared accounts: given, the run is a parent with one part per account, each
   * a run of its own whose message goes on the queue; absent, one run (no declared accounts).
   */
  readonly accounts?: readonly string[] | undefined;
}

/** Runs stored and messages sent at once when a run fans out over many accounts. */
const FAN_OUT_CONCURRENCY = 16;

/** What POST /api/renewals answers with. */
export type StartRunResult =
  /** A new run, queued; or the run an earlier request with the same key started. */
  | { readonly kind: "accepted"; readonly run: Run; readonly repeated: boolean }
  /** The key names a run of another request (dry run vs not): 422, nothing queued. */
  | { readonly kind: "key-reused"; readonly runId: string }
  /** The key's first request is still being accepted (its run is not stored yet): 409. */
  | { readonly kind: "key-in-flight"; readonly runId: string };

/** Reads of a just-claimed key's run before answering 409 (the first request is mid-way). */
const IN_FLIGHT_READS = 5;
const IN_FLIGHT_PAUSE_MS = 100;
/** A key filed this long ago (ms) whose run was never stored belongs to a request that died. */
const ABANDONED_AFTER_MS = MINUTE_MS;

/** What a key an earlier request filed means for this one: its answer, or start afresh. */
type EarlierKey = StartRunResult | "start-afresh";

/**
 * Files the Idempotency-Key for the run `runId`. Undefined: filed, the run is this request's to
 * start. Else the answer the key's earlier request gives this one, or "start-afresh" once the
 * key is released (at most once per request: `retried`).
 */
async function fileKey(
  ctx: SettleContext,
  request: StartRunRequest,
  keyHash: string,
  runId: string,
  retried: boolean,
): Promise<EarlierKey | undefined> {
  const claim = await ctx.store.claimKey(
    keyHash,
    { runId, dryRun: request.dryRun, at: request.now },
    request.now,
    IDEMPOTENCY_WINDOW_MS,
  );
  if (claim.claimed) return undefined;
  const { entry } = claim;
  return entry.dryRun !== request.dryRun
    ? keyOfAnotherRequest(ctx, keyHash, entry, retried)
    : keyOfTheSameRequest(ctx, request, keyHash, entry, retried);
}

/** The key names a run of another request (dry run vs not): reused, unless that run was lost. */
async function keyOfAnotherRequest(
  ctx: SettleContext,
  keyHash: string,
  entry: KeyEntry,
  retried: boolean,
): Promise<EarlierKey> {
  // A key whose run was lost (failed as undelivered) is free for any request.
  const stored = await ctx.store.get(entry.runId);
  const run = stored && (await settleRun(stored, ctx));
  if (!run?.undelivered || run.state !== "failed" || retried) {
    return { kind: "key-reused", runId: entry.runId };
  }
  await ctx.store.releaseKey(keyHash, entry.runId);
  return "start-afresh";
}

/**
 * The key names a run of a request like this one: that run, once stored (read a few times while
 * its request is mid-way); in flight while it is not; afresh when it was lost or abandoned.
 */
async function keyOfTheSameRequest(
  ctx: SettleContext,
  request: StartRunRequest,
  keyHash: string,
  entry: KeyEntry,
  retried: boolean,
): Promise<EarlierKey> {
  const { store } = ctx;
  for (let read = 0; read < IN_FLIGHT_READS; read++) {
    const stored = await store.get(entry.runId);
    if (!stored) {
      await new Promise((resolve) => setTimeout(resolve, IN_FLIGHT_PAUSE_MS));
      continue;
    }
    // Forced or not is part of the request too: another one's key is reused.
    if ((stored.force ?? false) !== (request.force ?? false)) {
      return { kind: "key-reused", runId: entry.runId };
    }
    // The key's run may never finish by itself (its first request died before sending its
    // message): sent again, or failed as undelivered, whereupon the key starts afresh.
    const run = await settleRun(stored, ctx);
    if (run.state === "failed" && run.undelivered && !retried) {
      await store.releaseKey(keyHash, entry.runId);
      return "start-afresh";
    }
    return { kind: "accepted", run, repeated: true };
  }
  // A first request that died between filing the key and storing its run (a crash, a
  // restart) would hold the key for 24 h: after a minute its claim is abandoned.
  if (request.now.getTime() - entry.at.getTime() < ABANDONED_AFTER_MS || retried) {
    return { kind: "key-in-flight", runId: entry.runId };
  }
  await store.releaseKey(keyHash, entry.runId);
  return "start-afresh";
}

/** The runs a request makes: the run itself, one part per declared account, and the parent. */
function runsOf(runId: string, request: StartRunRequest): { run: Run; parts: Run[]; parent: Run } {
  const run: Run = {
    runId,
    state: "queued",
    dryRun: request.dryRun,
    ...(request.force ? { force: true } : {}),
    requestedAt: request.now,
    requestedBy: request.requestedBy,
    attempts: 0,
  };
  const parts = (request.accounts ?? []).map(
    (account): Run => ({ ...run, runId: randomUUID(), account, parentRunId: runId }),
  );
  const parent: Run = request.accounts
    ? { ...run, parts: parts.map((p) => ({ account: p.account ?? "", runId: p.runId })) }
    : run;
  return { run, parts, parent };
}

/** Stores the parts, then the parent; when that fails, the key is released and the error thrown. */
async function storeRuns(
  store: RunStore,
  request: StartRunRequest,
  parts: readonly Run[],
  parent: Run,
): Promise<void> {
  try {
    // The parts first: a parent is never read without them.
    await mapWithConcurrency(parts, FAN_OUT_CONCURRENCY, (part) => store.save(part));
    await store.save(parent);
  } catch (error) {
    // No run to name: the key must not point at one for 24 h.
    if (request.keyHash) await store.releaseKey(request.keyHash, parent.runId).catch(() => {});
    throw error;
  }
}

/**
 * Sends each run's message; a run whose message could not be sent is marked failed. When any
 * failed, the key is released and the first error thrown.
 */
async function sendMessages(
  ctx: SettleContext,
  request: StartRunRequest,
  runId: string,
  runs: readonly Run[],
): Promise<void> {
  const { store, queue, log } = ctx;
  const failures: unknown[] = [];
  await mapWithConcurrency(runs, FAN_OUT_CONCURRENCY, async (one) => {
    try {
      await queue.send(messageOf(one), log);
    } catch (error) {
      failures.push(error);
      const problem = `the run could not be queued: ${redact(ensureError(error).message)}`;
      // Only while still queued: a send that failed after its message went out (a timeout) may
      // have been picked up already, and that delivery's outcome must not be marked failed.
      await store
        .save({ ...one, state: "failed", finishedAt: request.now, problem }, { onlyIf: "queued" })
        .catch(() => {});
    }
  });
  if (failures.length > 0) {
    if (request.keyHash) await store.releaseKey(request.keyHash, runId).catch(() => {});
    throw failures[0];
  }
}

/**
 * Accepts a run: with an Idempotency-Key, first files the key (of two requests with one key,
 * one wins and the other gets its run); then stores the run as queued and sends its message.
 * The run is stored before the message goes out, so the trigger always finds it. When the
 * message cannot be sent, the run is marked failed, the key released (a retry with it starts
 * afresh) and RUNS_UNAVAILABLE thrown (503).
 */
export async function startRun(
  store: RunStore,
  queue: RunQueue,
  log: Logger,
  request: StartRunRequest,
  retried = false,
): Promise<StartRunResult> {
  const ctx: SettleContext = { store, queue, log, now: request.now };
  const runId = randomUUID();
  if (request.keyHash) {
    const earlier = await fileKey(ctx, request, request.keyHash, runId, retried);
    if (earlier === "start-afresh") return startRun(store, queue, log, request, true);
    if (earlier) return earlier;
  }
  const { run, parts, parent } = runsOf(runId, request);
  await storeRuns(store, request, parts, parent);
  await sendMessages(ctx, request, runId, request.accounts ? parts : [run]);
  const over = request.accounts ? ` over ${parts.length} account(s)` : "";
  const how = `${request.dryRun ? " (dry run)" : ""}${request.force ? " (forced)" : ""}`;
  log.info(`certsched run ${runId} queued${over}${how}`);
  return { kind: "accepted", run: parent, repeated: false };
}
