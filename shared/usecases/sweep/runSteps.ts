import { setTimeout as sleep } from "node:timers/promises";
import type { CertificateEvent, EventKind, Trigger } from "../../core/history/events.js";
import type { SweepSummary } from "../../core/renewal/summary.js";
import type { Logger } from "../../lib/log.js";
import type { AfterSweepVerification, verifyAfterSweep } from "../afterSweepVerification.js";
import type { verifyWith } from "../verify.js";

/**
 * What a sweep does after its renewals, in the order a person needs it, each step
 * given only what is left of the run's time (core/renewal/runBudget.ts). The failed and
 * not-attempted names, the history's run row and the webhook come first (not steps here: they
 * are waited for until the end of the bookkeeping, and the row names the steps still to do);
 * then these.
 */
export const BOOKKEEPING_STEPS = [
  /** The history's events of the other certificates (renewed, skipped...). */
  "events",
  /** The inventory from the due list (written from the list on, awaited here). */
  "inventory",
  /** Earlier renewals verified once CERTSCHED_VERIFY_WINDOW has passed. */
  "verification",
  /** The sweep's telemetry flushed. */
  "telemetry",
] as const;

/** Events a person needs first: recorded with the run row, before anything else. */
export const URGENT = new Set<EventKind>([
  "failed",
  "answer-unknown",
  "stuck",
  "blocked",
  "not-attempted",
  "deferred",
]);

/** Whether a person needs this event first. */
export const urgent = (event: CertificateEvent): boolean => URGENT.has(event.event);

export type BookkeepingStep = (typeof BOOKKEEPING_STEPS)[number] | "request-count";

export interface Step {
  readonly name: BookkeepingStep;
  /**
   * Resolves true when over (a failure it logged counts: the time is what is judged here), false
   * when it was cut short by the signal.
   */
  run(signal: AbortSignal): Promise<boolean>;
}

/**
 * `work`'s value when it settles within `ms`, else `late` (the work goes on unwatched). `ms`
 * at or below 0: `late` at once, the work not waited for; Infinity: the work, however long.
 */
export async function within<T, L>(work: Promise<T>, ms: number, late: L): Promise<T | L> {
  if (ms <= 0) {
    work.catch(() => {});
    return late;
  }
  if (!Number.isFinite(ms)) return work;
  const stop = new AbortController();
  try {
    return await Promise.race([
      work,
      sleep(ms, late, { signal: stop.signal, ref: false }).catch(() => late),
    ]);
  } finally {
    stop.abort();
  }
}

/** What `within` answers when a step's time ran out (a step itself answers true or false). */
const LATE = Symbol("late");

/**
 * Runs the steps one after the other until `endAt` (a performance.now() instant): each is given
 * a signal aborted at `endAt` and is waited for until then. Resolves with the steps not done, in
 * order: one not over by `endAt` (left running), cut short (false) or that threw, and every
 * step after the time ran out. Never throws.
 */
export async function runSteps(
  steps: readonly Step[],
  endAt: number,
  now: () => number = () => performance.now(),
): Promise<BookkeepingStep[]> {
  const incomplete: BookkeepingStep[] = [];
  for (const step of steps) {
    const left = endAt - now();
    if (left <= 0) {
      incomplete.push(step.name);
      continue;
    }
    const signal = Number.isFinite(left)
      ? AbortSignal.timeout(Math.ceil(left))
      : new AbortController().signal;
    const done = await within(
      step.run(signal).catch(() => false),
      left,
      LATE,
    );
    // Out of time: this step and every later one. A timer may fire a moment before `endAt` by
    // performance.now(); a later step must not start in that crumb.
    if (done === LATE) {
      incomplete.push(...steps.slice(steps.indexOf(step)).map((s) => s.name));
      break;
    }
    if (!done) incomplete.push(step.name);
  }
  return incomplete;
}

/** Aborted at `at` (a performance.now() instant), or already when that has passed. */
export function sweepDeadline(at: number): AbortSignal {
  const ms = at - performance.now();
  return ms > 0 ? AbortSignal.timeout(Math.ceil(ms)) : AbortSignal.abort();
}

/** What verifying earlier renewals reads and writes. */
export type VerifyEarlierPorts = Parameters<typeof verifyAfterSweep>[0] &
  Parameters<typeof verifyWith>[0];

/**
 * Earlier sweeps' renewals, verified once CERTSCHED_VERIFY_WINDOW has passed; none
 * after a dry run. The verification code (and the TLS probe behind it) loads once the sweep is
 * done, so a sweep's first request is never kept waiting for it.
 */
export async function verifyEarlier(
  ports: VerifyEarlierPorts,
  log: Logger,
  summary: SweepSummary,
  options: { trigger: Trigger; signal: AbortSignal; ca?: readonly string[] | undefined },
): Promise<AfterSweepVerification | undefined> {
  if (summary.dryRun) return undefined;
  const [after, verify] = await Promise.all([
    import("../afterSweepVerification.js"),
    import("../verify.js"),
  ]);
  return after.verifyAfterSweep(ports, log, {
    trigger: options.trigger,
    deadline: options.signal,
    verify: (names) =>
      verify.verifyWith(ports, log, {
        trigger: options.trigger,
        names,
        scope: "after-sweep",
        signal: options.signal,
        ...(options.ca ? { ca: options.ca } : {}),
      }),
  });
}
