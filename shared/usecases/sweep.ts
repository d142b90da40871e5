import { randomUUID } from "node:crypto";
import type { Trigger } from "../core/history/events.js";
import { listingTap } from "../core/inventory/fromRecords.js";
import type { ConcurrencyControl } from "../core/ports/concurrency.js";
import type { History } from "../core/ports/history.js";
import type { Inventory } from "../core/ports/inventory.js";
import type { Ledger } from "../core/ports/ledger.js";
import type { Notifier } from "../core/ports/notifier.js";
import type { RequestLog } from "../core/ports/requestLog.js";
import type { ServiceOperations } from "../core/ports/service.js";
import { noTelemetry, type Telemetry, type TraceParent } from "../core/ports/telemetry.js";
import type { Tokens } from "../core/ports/tokens.js";
import {
  bookkeepingEndMs,
  bookkeepingReserveMs,
  type RunBudget,
  renewalStopMs,
} from "../core/renewal/runBudget.js";
import type { SweepSummary } from "../core/renewal/summary.js";
import type { Settings } from "../core/settings.js";
import { guardedTelemetry } from "../core/telemetry/guardedTelemetry.js";
import { ensureError } from "../lib/errors.js";
import type { Logger } from "../lib/log.js";
import { redact } from "../lib/redact/redact.js";
import type { AfterSweepVerification, verifyAfterSweep } from "./afterSweepVerification.js";
import {
  BOOKKEEPING_STEPS,
  type BookkeepingStep,
  countWithin,
  DEFAULT_DRAIN_MS,
  DEFAULT_FUNCTION_TIMEOUT_MS,
  runSteps,
  type Step,
  sweepDeadline,
  urgent,
  verifyEarlier,
  within,
} from "./steps/bookkeeping.js";
import { lastKnown } from "./steps/preflightGate.js";
import { recordHistory, sweepHistory } from "./steps/recordRun.js";
import { runSweep, type SweepOptions } from "./steps/runSweep.js";
import type { verifyWith } from "./verify.js";

/** What the sweep itself needs (a Runtime has it all). */
export interface SweepOwnPorts {
  readonly settings: Pick<
    Settings,
    | "sweepDeadlineMs"
    | "renewalConcurrency"
    | "renewalGraceMs"
    | "dryRun"
    | "serviceQuota"
    | "claimLeaseMs"
  > &
    // The run budget; unset: 10 min and 30 s, host.json's and the setting's defaults.
    Partial<Pick<Settings, "functionTimeoutMs" | "httpTimeoutMs">>;
  readonly client: Pick<ServiceOperations, "listDue" | "renewListed">;
  readonly ledger: Ledger;
  readonly history: History;
  /** Where the listed certificates are remembered for verification. */
  readonly inventory: Inventory;
  /** The request budget: the sweep's requests are counted and, with a quota, reserved. */
  readonly requests: RequestLog;
  readonly notifier: Notifier;
  /** Adaptive concurrency; unset, or a --concurrency given: a fixed width. */
  readonly concurrency?: ConcurrencyControl;
  readonly tokens: Pick<Tokens, "onWarning">;
  readonly now: () => Date;
  /** The telemetry, started on first call; a sweep goes on without it when it cannot start. */
  telemetry(): Promise<Telemetry>;
}

/**
 * What a sweep needs: its own ports and those of the verification of earlier renewals that
 * follows it (usecases/afterSweepVerification.ts, usecases/verify.ts).
 */
export type SweepPorts = SweepOwnPorts &
  Parameters<typeof verifyAfterSweep>[0] &
  Parameters<typeof verifyWith>[0];

export interface SweepWithOptions {
  /** Overrides CERTSCHED_DRY_RUN when given. */
  readonly dryRun?: boolean;
  /** Overrides CERTSCHED_RENEWAL_CONCURRENCY when given. */
  readonly concurrency?: number;
  /** Called as each certificate finishes (the CLI's progress line). */
  readonly onResult?: SweepOptions["onResult"];
  /** The invocation's trace context (InvocationContext.traceContext): the span's parent. */
  readonly traceContext?: TraceParent | undefined;
  /** What started the run, for the history (default "timer"). */
  readonly trigger?: Trigger;
  /** The run's id in the history (a queued run passes its own); default: a new UUID. */
  readonly runId?: string;
  /** Trusted certificates for verifying earlier renewals, instead of Node's store (tests). */
  readonly verifyCa?: readonly string[];
  /** Renew certificates their last preflight blocks all the same (`--force`, `?force=true`). */
  readonly force?: boolean;
  /**
   * performance.now() when the function invocation began (the timer, the queue trigger): the
   * whole run, its bookkeeping included, is budgeted inside CERTSCHED_FUNCTION_TIMEOUT from it
   * (core/renewal/runBudget.ts). Unset (the CLI): renewals stop at
   * CERTSCHED_SWEEP_DEADLINE from the sweep's start and the bookkeeping is waited for in full.
   */
  readonly invocationStart?: number;
}

/**
 * A sweep's summary and, when it verified earlier renewals, what that found; `bookkeeping` names
 * the steps after the renewals not done inside the run's time (absent: all done).
 */
export type SweepWithSummary = SweepSummary & {
  readonly verification?: AfterSweepVerification;
  readonly bookkeeping?: { readonly incomplete: readonly BookkeepingStep[] };
};

/** The telemetry, or none (with a warning) when it cannot start: never a failed sweep. */
async function telemetryOf(
  ports: Pick<SweepOwnPorts, "telemetry">,
  log: Logger,
): Promise<Telemetry> {
  try {
    return await ports.telemetry();
  } catch (error) {
    log.warn(
      `certsched telemetry could not start, sweeping without it: ${redact(ensureError(error).message)}`,
    );
    return noTelemetry;
  }
}

/**
 * The sweep with the settings of its ports, inside its telemetry span; then the bookkeeping
 * (the run budget), in the order a person needs it: the run row (naming the steps still to do) with
 * the failed and not-attempted certificates' events, and the webhook; then the other events,
 * the inventory (written from the due list on, beside the renewals), the verification of
 * earlier renewals, the telemetry; last, the run row again with what was not done. With
 * `invocationStart`, renewals stop early enough for all of it to end inside the function
 * timeout (core/renewal/runBudget.ts) and each step gets only what is left.
 * Telemetry, history and notification failures are logged and never change the summary.
 */
export async function sweepWith(
  ports: SweepPorts,
  log: Logger,
  options: SweepWithOptions = {},
): Promise<SweepWithSummary> {
  const timed = options.invocationStart !== undefined;
  const start = options.invocationStart ?? performance.now();
  const budget: RunBudget = {
    functionTimeoutMs: ports.settings.functionTimeoutMs ?? DEFAULT_FUNCTION_TIMEOUT_MS,
    sweepDeadlineMs: ports.settings.sweepDeadlineMs,
    drainMs: ports.settings.httpTimeoutMs ?? DEFAULT_DRAIN_MS,
  };
  const endAt = timed ? start + bookkeepingEndMs(budget.functionTimeoutMs) : Infinity;
  // No renewal starts after this: CERTSCHED_SWEEP_DEADLINE, then, once the list says how many
  // rows the bookkeeping has to write, the run budget's stop (both from the start).
  const stop = new AbortController();
  const deadline = stop.signal;
  let stopTimer: NodeJS.Timeout | undefined;
  const stopAt = (ms: number) => {
    clearTimeout(stopTimer);
    stopTimer = setTimeout(() => stop.abort(), Math.max(0, start + ms - performance.now()));
    stopTimer.unref(); // Never what keeps a process alive (a CLI sweep that is over).
  };
  stopAt(budget.sweepDeadlineMs);
  let reserve = bookkeepingReserveMs(0, budget.functionTimeoutMs);
  const telemetry = guardedTelemetry(await telemetryOf(ports, log), (m) => log.warn(m));
  // A token that arrives already expiring is used for the sweep anyway; this sweep's log says so.
  const stopTokenWarnings = ports.tokens.onWarning((m) => log.warn(m));
  // The records the sweep lists are kept for the inventory (rootDomain, vault).
  const listing = listingTap(ports.client);
  // Written from the list at once, beside the renewals, so a run cut short still has
  // it, and each run writes it again from its own list (what the last one missed included).
  let inventoryWrite: Promise<boolean> | undefined;
  const client = {
    listDue: async () => {
      const due = await listing.client.listDue();
      if (timed) {
        reserve = bookkeepingReserveMs(due.certificates.length, budget.functionTimeoutMs);
        stopAt(renewalStopMs(budget, due.certificates.length));
      }
      inventoryWrite = listing.remember(ports, log);
      return due;
    },
    // Every argument: the `sending` hook rides in the second (claimAndSend's held last byte).
    renewListed: (...args: Parameters<SweepPorts["client"]["renewListed"]>) =>
      listing.client.renewListed(...args),
  };
  // One id for the ledger's claims and the history's records of this sweep.
  const runId = options.runId ?? randomUUID();
  // Each certificate's last preflight, once a sweep; one that blocks is not renewed.
  const known = await lastKnown(ports.inventory, log);
  const preflights = known?.preflights;
  const trigger = options.trigger ?? "timer";
  const summary = await telemetry.inSweepSpan(
    () =>
      runSweep({
        client,
        ledger: ports.ledger,
        log,
        now: ports.now,
        concurrency: options.concurrency ?? ports.settings.renewalConcurrency,
        ...(ports.concurrency && options.concurrency === undefined
          ? { control: ports.concurrency }
          : {}),
        graceMs: ports.settings.renewalGraceMs,
        ...(ports.settings.claimLeaseMs ? { claimLeaseMs: ports.settings.claimLeaseMs } : {}),
        dryRun: options.dryRun ?? ports.settings.dryRun,
        deadline,
        ...(options.onResult ? { onResult: options.onResult } : {}),
        // The request budget: requests counted under the run's trigger.
        trigger,
        // The 7-day count waits at most a quarter of the reserve (it is only read).
        budget: {
          requests: timed
            ? countWithin(ports.requests, () => Math.min(reserve / 4, endAt - performance.now()))
            : ports.requests,
          quota: ports.settings.serviceQuota,
        },
        runId,
        ...(preflights ? { preflights } : {}),
        ...(options.force ? { force: true } : {}),
      }),
    options.traceContext,
  );
  clearTimeout(stopTimer);
  stopTokenWarnings(); // runSweep never throws, and the guarded span never does either.
  telemetry.recordSweep(summary);
  const { events, record } = sweepHistory(
    summary,
    { runId, trigger, finishedAt: ports.now() },
    known?.served,
  );
  const left = () => endAt - performance.now();
  const countLost: BookkeepingStep[] =
    ports.requests.kind !== "none" && summary.requests7d === undefined ? ["request-count"] : [];
  // First what a person needs: the names (run row, their events) and the webhook.
  await within(
    Promise.all([
      recordHistory(
        ports.history,
        log,
        events.filter((e) => urgent(e)),
        { ...record, bookkeeping: { incomplete: [...countLost, ...BOOKKEEPING_STEPS] } },
      ),
      ports.notifier.notify(summary, log).catch((error: unknown) => {
        log.warn(`certsched webhook notification failed: ${redact(ensureError(error).message)}`);
      }),
    ]),
    left(),
    undefined,
  );
  let verification: AfterSweepVerification | undefined;
  const steps: Step[] = [
    // A step that fails has said so in its warning (named rows): done, as far as time goes.
    {
      name: "events",
      run: async () => {
        const rest = events.filter((e) => !urgent(e));
        if (rest.length > 0) await recordHistory(ports.history, log, rest);
        return true;
      },
    },
    { name: "inventory", run: () => (inventoryWrite ?? Promise.resolve(true)).then(() => true) },
    {
      name: "verification",
      run: async (step) => {
        // Without a run budget (the CLI), as before: none starts after the sweep's deadline.
        const signal = timed ? step : sweepDeadline(start + budget.sweepDeadlineMs);
        verification = await verifyEarlier(ports, log, summary, {
          trigger,
          signal,
          ...(options.verifyCa ? { ca: options.verifyCa } : {}),
        });
        return !signal.aborted;
      },
    },
    { name: "telemetry", run: () => telemetry.flush().then(() => true) },
  ];
  const incomplete = [...countLost, ...(await runSteps(steps, endAt))];
  if (incomplete.length > 0) {
    log.warn(
      `certsched run ${runId}: not done inside the run's time: ${incomplete.join(", ")} (the run's history row names them; the next run writes the inventory again and verifies what this one did not)`,
    );
  }
  // Last: the run row again, with what was not done (absent: everything was).
  await within(
    recordHistory(ports.history, log, [], {
      ...record,
      ...(incomplete.length > 0 ? { bookkeeping: { incomplete } } : {}),
    }),
    // Half the margin left at the end of the timeout is its own.
    (start + budget.functionTimeoutMs + endAt) / 2 - performance.now(),
    false,
  );
  return {
    ...summary,
    ...(verification ? { verification } : {}),
    ...(incomplete.length > 0 ? { bookkeeping: { incomplete } } : {}),
  };
}
