import type { RunQueue } from "../../core/ports/runQueue.js";
import type { RunStore } from "../../core/ports/runStore.js";
import { exhaustedAt, exhaustedRun } from "../../core/runs/exhausted.js";
import { derivedParent } from "../../core/runs/parts.js";
import { isFinished, type Run } from "../../core/runs/run.js";
import { messageOf } from "../../core/runs/runMessage.js";
import { ensureError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { mapWithConcurrency } from "../../lib/pool.js";
import { redact } from "../../lib/redact/redact.js";
import { MINUTE_MS } from "../../lib/time.js";

/**
 * How long a queued run may go without a delivery before its message is taken for lost (5 min).
 * The host polls a queue at least every minute and a queued run waits for at most the sweep
 * ahead of it on a busy instance; a message the request never sent (its process was killed
 * between storing the run and sending) is never delivered at all.
 */
export const UNDELIVERED_AFTER_MS = 5 * MINUTE_MS;

const MINUTES = UNDELIVERED_AFTER_MS / MINUTE_MS;

/** The cause a run failed for when neither its message nor the copy sent again was delivered. */
export const UNDELIVERED_PROBLEM = `no delivery of the run's queue message within ${MINUTES} min of queueing it, nor within ${MINUTES} min of sending it again: the message was lost (the request that queued it stopped before sending it, or the message was deleted); start a new run`;

export interface SettleContext {
  readonly store: RunStore;
  readonly queue: RunQueue;
  readonly log: Logger;
  readonly now: Date;
}

/**
 * Moves on a run that can never finish by itself, as whoever reads it notices: a
 * GET of the run, a POST repeating its Idempotency-Key, a poisoned message naming it.
 * - Queued, no delivery within UNDELIVERED_AFTER_MS of being queued: its message is sent again,
 *   once (`resentAt`; a conditional write, so two readers do not both send).
 * - Queued, no delivery within UNDELIVERED_AFTER_MS of that: failed with the cause, marked
 *   `undelivered` so its Idempotency-Key starts a fresh run.
 * - Running with every delivery spent and the last one over (exhaustedAt): failed, as the
 *   poison handler would (a poison message may come too early to confirm it, or never).
 * Writes only over the state read (a delivery that started meanwhile wins). Resolves with the
 * run as it now stands; a store or queue that fails leaves it as read (logged), never throws.
 */
export async function settleRun(run: Run, ctx: SettleContext): Promise<Run> {
  if (run.parts) return (await settleParent(run, ctx)).run;
  try {
    return await settle(run, ctx);
  } catch (error) {
    ctx.log.warn(
      `certsched run ${run.runId}: could not move on its ${run.state} state: ${redact(ensureError(error).message)}`,
    );
    return run;
  }
}

async function settle(run: Run, { store, queue, log, now }: SettleContext): Promise<Run> {
  const how = exhaustedAt(run, now);
  if (how) {
    await store.save(exhaustedRun(run, how, now), { onlyIf: "running" });
    return (await store.get(run.runId)) ?? run;
  }
  if (run.state !== "queued") return run;
  const since = run.resentAt ?? run.requestedAt;
  if (now.getTime() - since.getTime() < UNDELIVERED_AFTER_MS) return run;
  if (!run.resentAt) {
    const resent: Run = { ...run, resentAt: now };
    await store.save(resent, { onlyIf: "queued", onlyIfNotResent: true });
    const stored = await store.get(run.runId);
    // Another reader sent it again first (its resentAt won), or a delivery began: theirs stands.
    if (stored?.state !== "queued" || stored.resentAt?.getTime() !== now.getTime()) {
      return stored ?? run;
    }
    try {
      await queue.send(messageOf(run), log);
    } catch (error) {
      // Nothing went out: the resend is not counted, or the run would be failed as undelivered
      // for a copy that never existed. The next reader tries again. Only while still queued.
      await store.save(run, { onlyIf: "queued" }).catch(() => {});
      throw error;
    }
    log.warn(
      `certsched run ${run.runId}: no delivery within ${MINUTES} min of queueing it; its message was sent again`,
    );
    return stored;
  }
  // Not lost while a copy still waits in the queue (a busy instance, a long sweep ahead of it):
  // it is delivered in time, and failing the run now would make that delivery do nothing.
  // Failed only when the queue shows none waiting; a queue that cannot tell leaves it queued.
  const waiting = queue.holds ? await queue.holds(run.runId) : false;
  if (waiting !== false) return run;
  const failed: Run = {
    ...run,
    state: "failed",
    finishedAt: now,
    problem: UNDELIVERED_PROBLEM,
    undelivered: true,
  };
  await store.save(failed, { onlyIf: "queued" });
  const stored = await store.get(run.runId);
  if (stored?.undelivered) log.error(`certsched run ${run.runId} failed: ${UNDELIVERED_PROBLEM}`);
  return stored ?? failed;
}

/** A run as read: a fanned-out run with its parts (in its parts' order), each as stored. */
export interface ReadRun {
  readonly run: Run;
  readonly parts?: readonly (Run | undefined)[];
}

/** Parts read at once. */
const PART_READS = 16;

/** The run `runId`, a fanned-out one with its state derived from its parts (nothing settled). */
export async function readRun(
  store: Pick<RunStore, "get">,
  runId: string,
): Promise<ReadRun | undefined> {
  const run = await store.get(runId);
  if (!run?.parts) return run && { run };
  const parts = await mapWithConcurrency(run.parts, PART_READS, (p) => store.get(p.runId));
  return { run: derivedParent(run, parts), parts };
}

/**
 * A fanned-out run as whoever reads it sees it: each unfinished part settled (settleRun), the
 * parent's state derived from its parts. Once they are all finished, the derived outcome is
 * written to the parent too (so the daily pass no longer lists it); a parent stored finished
 * is still shown as its parts are. Never throws for a part (a part that fails to settle stays
 * as read); a parent whose parts cannot be read throws as the store does.
 */
export async function settleParent(parent: Run, ctx: SettleContext): Promise<ReadRun> {
  const parts = await mapWithConcurrency(parent.parts ?? [], PART_READS, async (p) => {
    const part = await ctx.store.get(p.runId);
    return part && !isFinished(part.state) ? settleRun(part, ctx) : part;
  });
  const run = derivedParent(parent, parts);
  if (isFinished(run.state) && !isFinished(parent.state)) {
    await ctx.store.save(run, { onlyIf: parent.state }).catch((error: unknown) => {
      ctx.log.warn(
        `certsched run ${parent.runId}: could not record its outcome: ${redact(ensureError(error).message)}`,
      );
    });
  }
  return { run, parts };
}

/** Unfinished runs one daily pass looks at: far more than are ever left unfinished at once. */
export const SETTLE_PASS_LIMIT = 500;

/**
 * The daily pass (cleanupHistory) over runs nobody reads again: each unfinished run is settled
 * as a GET of it would. Never throws: a store that fails is logged, tomorrow's pass catches up.
 */
export async function settleUnfinished(
  runs: { readonly store: RunStore; readonly queue: RunQueue },
  log: Logger,
  now: Date,
): Promise<number> {
  let unfinished: Run[];
  try {
    unfinished = await runs.store.listUnfinished(SETTLE_PASS_LIMIT);
  } catch (error) {
    log.warn(
      `certsched run store: could not list unfinished runs: ${redact(ensureError(error).message)}`,
    );
    return 0;
  }
  let moved = 0;
  for (const run of unfinished) {
    const settled = await settleRun(run, { ...runs, log, now });
    if (settled !== run) moved += 1;
  }
  if (moved > 0) log.info(`certsched run store: moved on ${moved} unfinished run(s)`);
  return moved;
}
