import { randomUUID } from "node:crypto";
import { daysLeft } from "../../core/certificate/dates.js";
import type { CertificateRecord } from "../../core/certificate/records.js";
import { recordWarnings } from "../../core/certificate/recordWarnings.js";
import { type PoolSlot, runPool } from "../../core/concurrency/adaptivePool.js";
import { signalOf } from "../../core/concurrency/signals.js";
import type { Trigger } from "../../core/history/events.js";
import type { QuotaUsage } from "../../core/ports/budget.js";
import type { ConcurrencyControl } from "../../core/ports/concurrency.js";
import type { PreflightRecord } from "../../core/ports/inventory.js";
import { type Ledger, noLedger } from "../../core/ports/ledger.js";
import type { DueList, SendingOptions } from "../../core/ports/service.js";
import { usageText } from "../../core/quota/budgetRules.js";
import { withPurpose } from "../../core/quota/requestContext.js";
import { withTrigger } from "../../core/quota/requestTrigger.js";
import {
  byUrgency,
  deferralCause,
  quotaAtStart,
  renewalGate,
  requestsLast7Days,
  type SweepBudget,
} from "../../core/quota/sweepBudget.js";
import { listedOnce } from "../../core/renewal/listedOnce.js";
import {
  type CertificateResult,
  countOutcomes,
  type QuotaView,
  resultLine,
  resultProblems,
  type StopReason,
  type SweepSummary,
  summaryLine,
  unresolvedField,
} from "../../core/renewal/summary.js";
import { ensureError } from "../../lib/errors.js";
import { observeAttempts } from "../../lib/http/attemptObserver.js";
import type { Logger } from "../../lib/log.js";
import { describe, type RenewContext, renewOne } from "./renewOne.js";
import { retryThrottled } from "./throttledRetry.js";

export interface SweepOptions extends Pick<RenewContext, "claimLeaseMs"> {
  /** The service operations a sweep needs (a ServiceClient). */
  readonly client: {
    listDue(): Promise<DueList>;
    renewListed(certificate: CertificateRecord, options?: SendingOptions): Promise<string>;
  };
  readonly ledger: Ledger;
  readonly log: Logger;
  readonly now: () => Date;
  /** Renewals in flight at once (without `control`, or while the budget asks for one at a time). */
  readonly concurrency: number;
  /**
   * Adaptive concurrency: the pool's width follows `control.current()`, read each time
   * a slot frees, and every renewal request tells it what it met (a 429, its answer time).
   * Unset: `concurrency`, fixed.
   */
  readonly control?: ConcurrencyControl;
  /** Skip a certificate whose renewal was requested within this many ms. */
  readonly graceMs: number;
  /** List and decide, renew nothing. */
  readonly dryRun: boolean;
  /**
   * Aborted when no new renewal may start (CERTSCHED_SWEEP_DEADLINE): renewals in flight end on
   * their own timeout; every certificate not started is reported "not-attempted". Unset: none.
   */
  readonly deadline?: AbortSignal;
  /** Called as each certificate finishes (the CLI's progress line). */
  readonly onResult?: (result: CertificateResult, done: number, total: number) => void;
  /** What started the run: every request it sends is counted under it. Unset: the default. */
  readonly trigger?: Trigger;
  /**
   * The request budget: where requests are counted (the summary's requests7d) and
   * CERTSCHED_SERVICE_QUOTA, when set. Unset: nothing counted or enforced.
   */
  readonly budget?: SweepBudget;
  /**
   * The run's id. Its requests are reserved under it, so a deferral can tell this
   * run's use of the budget from other runs' (default: a new UUID). When given, it is also kept
   * on each ledger claim the run makes: delivered again after an attempt died, a run counts its
   * own earlier renewals as renewed, not skipped (unset: none kept on the ledger).
   */
  readonly runId?: string;
  /** Each certificate's last preflight (unset: nothing blocks, none kept). */
  readonly preflights?: ReadonlyMap<string, PreflightRecord>;
  /** Renew certificates their last preflight blocks all the same (`--force`, `?force=true`). */
  readonly force?: boolean;
}

/**
 * The renewal sweep: list what is due, decide for each certificate, renew with bounded
 * concurrency, record each step in the ledger, summarise. Never throws: a failure of the list,
 * the ledger or any renewal is in the summary, and `failed` says whether the run must be
 * reported as failed. A configured ledger that fails stops the renewals (never renew on
 * without duplicate protection); only a sweep with no ledger configured runs without one.
 */
export function runSweep(options: SweepOptions): Promise<SweepSummary> {
  const runId = options.runId ?? randomUUID();
  // Every request of a sweep, its list included, is a renewal's: first claim on the budget.
  const run = () => withPurpose({ purpose: "renewal", runId }, () => sweep(options, runId));
  return options.trigger ? withTrigger(options.trigger, run) : run();
}

async function sweep(options: SweepOptions, runId: string): Promise<SweepSummary> {
  const { log, now } = options;
  const startedAt = now();
  const started = performance.now();
  const problems: string[] = [];
  const unresolved: string[] = [];
  let ledger = options.ledger;
  let ledgerState: SweepSummary["ledger"] = ledger.kind;
  let stop: StopReason | undefined;

  const ledgerFailed = (error: unknown) => {
    const message = options.dryRun
      ? `renewal ledger unavailable, dry run decided without it: ${ensureError(error).message}`
      : `renewal ledger unavailable, so no renewal was started after it failed (without it one could be ordered twice): ${ensureError(error).message}`;
    if (!problems.includes(message)) {
      problems.push(message);
      log.error(`certsched ${message}`);
    }
    ledgerState = "unavailable";
    if (!options.dryRun) stop ??= "LedgerUnavailable";
  };

  if (ledger.kind === "none") {
    log.warn(
      "certsched: no storage configured (AzureWebJobsStorage): sweeping without a ledger, so recent requests and stuck renewals are not tracked",
    );
  } else {
    try {
      await ledger.open();
    } catch (error) {
      ledgerFailed(error);
      // A dry run goes on deciding without it; a real one renews nothing (ledgerFailed stops it).
      ledger = noLedger;
    }
  }

  const onDeadline = () => {
    stop ??= "DeadlinePassed";
  };
  if (options.deadline?.aborted) onDeadline();
  options.deadline?.addEventListener("abort", onDeadline, { once: true });

  let quota: QuotaView | undefined;
  let gate: ReturnType<typeof renewalGate> | undefined;
  /** Why renewals were refused by the shared budget when the sweep had no gate of its own. */
  let refusedCause: string | undefined;
  const finish = async (
    results: CertificateResult[],
    due: DueList | undefined,
    listError?: string,
  ) => {
    options.deadline?.removeEventListener("abort", onDeadline);
    const requests7d = await requestsLast7Days(options.budget, options);
    const rejected = due?.rejected ?? [];
    problems.push(...resultProblems(results, rejected, gate?.cause() ?? refusedCause));
    if (unresolved.length > 0) {
      problems.push(
        `${unresolved.length} renewal claim(s) of this sweep left unresolved in the ledger: ${unresolved.join(", ")}`,
      );
    }
    const counts = countOutcomes(results, rejected.length);
    const summary: SweepSummary = {
      dryRun: options.dryRun,
      ...(options.force ? { forced: true as const } : {}),
      startedAt: startedAt.toISOString(),
      durationMs: Math.round(performance.now() - started),
      ledger: ledgerState,
      ...(listError ? { listError } : {}),
      results,
      rejected,
      counts,
      failed:
        listError !== undefined ||
        counts.failed > 0 ||
        counts.stuck > 0 ||
        counts.blocked > 0 || // A person must act: its preflight says it would be refused.
        counts["not-attempted"] > 0 ||
        ledgerState === "unavailable" ||
        unresolved.length > 0 ||
        results.some((r) => r.answerUnknown?.overdue) || // An hour after an unknown answer
        counts.deferred > 0, // A person must look: the budget is too small for what is due.
      problems,
      ...(requests7d !== undefined ? { requests7d } : {}),
      ...(quota ? { quota } : {}),
      ...unresolvedField(results), // Named in the webhook and the run's JSON too.
    };
    const line = summaryLine(summary);
    if (summary.failed) log.error(line);
    else log.info(line);
    return summary;
  };
  let due: DueList;
  try {
    due = listedOnce(await options.client.listDue());
  } catch (error) {
    const message = describe(error).detail;
    problems.push(message);
    log.error(`certsched sweep could not list certificates: ${message}`);
    return finish([], undefined, message);
  }
  // Fields certsched keeps but does not read, in a type the spec does not document: once a sweep.
  for (const warning of recordWarnings(due.certificates)) log.warn(`certsched: ${warning}`);

  const certificates = byUrgency(due.certificates);
  quota = options.dryRun ? undefined : await quotaAtStart(options.budget, { ...options, runId });
  // Renewals go out while the requests they send (retries included) fit what is left.
  gate =
    quota && options.budget
      ? renewalGate(quota, options.budget.requests, certificates.length, runId)
      : undefined;
  const refused = (usage: QuotaUsage): string => {
    if (gate) return gate.refused(usage);
    refusedCause = deferralCause(usage);
    return `${usageText(usage)}; the next sweep will decide it`;
  };
  const context = {
    ledger,
    now,
    graceMs: options.graceMs,
    claimLeaseMs: options.claimLeaseMs,
    dryRun: options.dryRun,
    stopped: () => stop,
    ledgerFailed,
    unresolved: (name: string) => {
      unresolved.push(name);
    },
    ...(gate ? { deferred: () => (gate as NonNullable<typeof gate>).deferred() } : {}),
    ...(options.runId ? { runId: options.runId } : {}),
    preflightOf: (name: string) => options.preflights?.get(name),
    force: options.force === true,
    refused,
  };
  let done = 0;
  const control = options.control;
  const width = (): number =>
    gate?.sequential ? 1 : control ? control.current() : options.concurrency;
  // The limit every process of the account shares, as it stands: only when renewals may go out.
  if (control && certificates.length > 0 && !options.dryRun && !stop) await control.refresh();
  /** One certificate's turn: its renewal requests observed, a 429 asked again until the deadline. */
  const turn = (cert: CertificateRecord, slot: PoolSlot) => {
    let epoch = control?.epoch() ?? 0;
    const client = {
      renewListed: (c: CertificateRecord, sending?: SendingOptions) =>
        retryThrottled(() => options.client.renewListed(c, sending), {
          slot,
          deadline: options.deadline,
          onRetry: () => {
            epoch = control?.epoch() ?? 0;
          },
        }),
    };
    const run = () => renewOne(cert, { ...context, client });
    if (!control) return run();
    return observeAttempts(
      {
        attempted: (report) => {
          const signal = signalOf(report, epoch);
          if (!signal) return;
          control.observe(signal);
          // Waiting out a 429's Retry-After, the renewal holds no place at the service.
          if (signal.kind === "throttled") slot.release();
        },
        retrying: async () => {
          await slot.reacquire();
          epoch = control.epoch();
        },
      },
      run,
    );
  };
  const results = await runPool(certificates, width, async (cert, _index, slot) => {
    const result = await turn(cert, slot).catch(
      (error: unknown): CertificateResult => ({
        certificateName: cert.certificateName,
        id: cert.id,
        target: cert.target,
        expiryDate: cert.expiryDate.toISOString(),
        daysLeft: daysLeft(cert.expiryDate, now()),
        outcome: "failed",
        reason: "SweepError",
        ...describe(error),
      }),
    );
    const line = resultLine(result);
    if (["failed", "stuck", "blocked", "not-attempted", "deferred"].includes(result.outcome))
      log.error(line);
    else log.info(line);
    done += 1;
    options.onResult?.(result, done, certificates.length);
    return result;
  });
  if (control) {
    await control.settled();
    for (const warning of control.takeWarnings()) log.warn(warning);
  }
  return finish(results, due);
}
