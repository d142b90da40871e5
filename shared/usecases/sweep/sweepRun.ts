import { randomUUID } from "node:crypto";
import type { Trigger } from "../../core/history/events.js";
import type { RequestContext } from "../../core/ports/service.js";
import {
  bookkeepingEndMs,
  bookkeepingReserveMs,
  type RunBudget,
  renewalStopMs,
} from "../../core/renewal/runBudget.js";
import type { StopReason, SweepSummary } from "../../core/renewal/summary.js";
import type { Settings } from "../../core/settings.js";
import { ensureError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";

/** Defaults when the ports' settings leave them out: host.json's 10 min, the 30-s timeout. */
export const DEFAULT_FUNCTION_TIMEOUT_MS = 600_000;
export const DEFAULT_DRAIN_MS = 30_000;

/** The longest delay setTimeout keeps (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The settings a sweep's run reads. */
export type RunSettings = Pick<Settings, "sweepDeadlineMs"> &
  Partial<Pick<Settings, "functionTimeoutMs" | "httpTimeoutMs">>;

/** What begins a run: who asked, and when the invocation began. */
export interface RunStart {
  /** What started the run, for the history and the request count (default "timer"). */
  readonly trigger?: Trigger | undefined;
  /** The run's id in the history (a queued run passes its own); default: a new UUID. */
  readonly runId?: string | undefined;
  /**
   * performance.now() when the function invocation began (the timer, the queue trigger): the
   * whole run, its bookkeeping included, is budgeted inside CERTSCHED_FUNCTION_TIMEOUT from it
   * (core/renewal/runBudget.ts). Unset (the CLI): renewals stop at CERTSCHED_SWEEP_DEADLINE from
   * the sweep's start and the bookkeeping is waited for in full.
   */
  readonly invocationStart?: number | undefined;
  /** Aborted when the caller wants no new renewal started (a host shutting down; tests). */
  readonly stop?: AbortSignal | undefined;
}

/**
 * One sweep's run, from its start to its summary: who it is (id, trigger, the request context
 * every service call of it carries), its time (the run budget and the stop after which no
 * renewal starts) and what it has found on the way (problems, claims left unresolved, the
 * ledger's state, why renewals stopped).
 */
export class SweepRun {
  readonly id: string;
  readonly trigger: Trigger;
  /** Every request of a sweep, its list included, is a renewal's: first claim on the budget. */
  readonly context: RequestContext;
  /** When the run began (performance.now()): the run budget counts from here. */
  readonly start: number;
  /** Whether the run has a whole-run budget (an invocation start was given). */
  readonly timed: boolean;
  readonly budget: RunBudget;
  /** When the bookkeeping must be over (performance.now()); Infinity without a budget. */
  readonly endAt: number;
  /** Aborted when no new renewal may start. */
  readonly deadline: AbortSignal;
  /** Problems that make the run fail, one line each, in the order met. */
  readonly problems: string[] = [];
  /** Certificates whose claim this sweep left unresolved in the ledger. */
  readonly unresolved: string[] = [];
  ledger: SweepSummary["ledger"] = "none";
  /** The inventory written from the due list, in flight since the list (the bookkeeping waits). */
  inventoryWrite: Promise<boolean> = Promise.resolve(true);
  #renewals: { readonly startedAt: Date; readonly started: number } | undefined;
  #reserve: number;
  #stop: StopReason | undefined;
  readonly #abort = new AbortController();
  #stopTimer: NodeJS.Timeout | undefined;

  constructor(settings: RunSettings, start: RunStart) {
    this.id = start.runId ?? randomUUID();
    this.trigger = start.trigger ?? "timer";
    this.context = { purpose: "renewal", trigger: this.trigger, runId: this.id };
    this.timed = start.invocationStart !== undefined;
    this.start = start.invocationStart ?? performance.now();
    this.budget = {
      functionTimeoutMs: settings.functionTimeoutMs ?? DEFAULT_FUNCTION_TIMEOUT_MS,
      sweepDeadlineMs: settings.sweepDeadlineMs,
      drainMs: settings.httpTimeoutMs ?? DEFAULT_DRAIN_MS,
    };
    this.endAt = this.timed
      ? this.start + bookkeepingEndMs(this.budget.functionTimeoutMs)
      : Infinity;
    this.#reserve = bookkeepingReserveMs(0, this.budget.functionTimeoutMs);
    this.deadline = start.stop
      ? AbortSignal.any([this.#abort.signal, start.stop])
      : this.#abort.signal;
    if (this.deadline.aborted) this.stopWith("DeadlinePassed");
    this.deadline.addEventListener("abort", () => this.stopWith("DeadlinePassed"), { once: true });
    this.#stopAt(this.budget.sweepDeadlineMs);
  }

  /** The renewals begin now: the summary's start and duration count from here. */
  beginRenewals(now: () => Date): void {
    this.#renewals = { startedAt: now(), started: performance.now() };
  }

  /** When the renewals began, on the app's clock and on performance.now() (the summary's). */
  get renewals(): { readonly startedAt: Date; readonly started: number } {
    if (!this.#renewals) throw new Error("the sweep's renewals have not begun");
    return this.#renewals;
  }

  /** Why no renewal may start any more, or undefined while they may. */
  stopped(): StopReason | undefined {
    return this.#stop;
  }

  /** No renewal starts from now on, for `reason` (the first reason given is kept). */
  stopWith(reason: StopReason): void {
    this.#stop ??= reason;
  }

  /**
   * The list said how many certificates the bookkeeping will have to write: with a run budget,
   * its reserve grows with them and the renewals stop early enough for it.
   */
  listed(rows: number): void {
    if (!this.timed) return;
    this.#reserve = bookkeepingReserveMs(rows, this.budget.functionTimeoutMs);
    this.#stopAt(renewalStopMs(this.budget, rows));
  }

  /**
   * A ledger call failed: the run says so once and, renewing, stops (never renew on without
   * duplicate protection); a dry run goes on deciding without it.
   */
  ledgerFailed(error: unknown, dryRun: boolean, log: Logger): void {
    const cause = ensureError(error).message;
    const message = dryRun
      ? `renewal ledger unavailable, dry run decided without it: ${cause}`
      : `renewal ledger unavailable, so no renewal was started after it failed (without it one could be ordered twice): ${cause}`;
    if (!this.problems.includes(message)) {
      this.problems.push(message);
      log.error(`certsched ${message}`);
    }
    this.ledger = "unavailable";
    if (!dryRun) this.stopWith("LedgerUnavailable");
  }

  /** The bookkeeping's reserve as it stands, in ms. */
  reserveMs(): number {
    return this.#reserve;
  }

  /** What is left until the bookkeeping must be over, in ms (Infinity without a budget). */
  left(): number {
    return this.endAt - performance.now();
  }

  /** The renewals are over: the stop's timer is dropped. */
  renewalsOver(): void {
    clearTimeout(this.#stopTimer);
  }

  /** Moves the stop to `ms` after the run's start. */
  #stopAt(ms: number): void {
    clearTimeout(this.#stopTimer);
    const wait = Math.max(0, this.start + ms - performance.now());
    // A stop beyond what a timer can hold (about 24.8 days) never comes within a run.
    if (wait > MAX_TIMER_MS) return;
    this.#stopTimer = setTimeout(() => this.#abort.abort(), wait);
    this.#stopTimer.unref(); // Never what keeps a process alive (a CLI sweep that is over).
  }
}
