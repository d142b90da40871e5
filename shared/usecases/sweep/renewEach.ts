import { daysLeft } from "../../core/certificate/dates.js";
import type { CertificateRecord } from "../../core/certificate/records.js";
import { type PoolSlot, runPool } from "../../core/concurrency/adaptivePool.js";
import { signalOf } from "../../core/concurrency/signals.js";
import type { ConcurrencyControl } from "../../core/ports/concurrency.js";
import type { PreflightRecord } from "../../core/ports/inventory.js";
import type { Ledger } from "../../core/ports/ledger.js";
import { type CertificateResult, resultLine } from "../../core/renewal/summary.js";
import type { AccountCalendar } from "../../core/windows/timing.js";
import type { AttemptObserver } from "../../lib/http/attemptObserver.js";
import type { Logger } from "../../lib/log.js";
import type { Plan } from "./plan.js";
import { describe, renewOne, type TurnPorts } from "./renewOne.js";
import type { SweepCalls } from "./sweepCalls.js";
import type { SweepRun } from "./sweepRun.js";

/** What the renew stage needs besides the run and its plan. */
export interface RenewEachInput {
  readonly calls: SweepCalls;
  /** The ledger as opened by the sweep (noLedger when it could not be). */
  readonly ledger: Ledger;
  readonly log: Logger;
  readonly now: () => Date;
  /** Renewals in flight at once (without `control`, or while the budget asks for one at a time). */
  readonly concurrency: number;
  /**
   * Adaptive concurrency: the pool's width follows `control.current()`, read each time a slot
   * frees, and every renewal request tells it what it met (a 429, its answer time). Unset:
   * `concurrency`, fixed.
   */
  readonly control?: ConcurrencyControl | undefined;
  readonly graceMs: number;
  readonly claimLeaseMs?: number | undefined;
  readonly dryRun: boolean;
  /** Each certificate's last preflight (unset: nothing blocks). */
  readonly preflights?: ReadonlyMap<string, PreflightRecord> | undefined;
  /** Renew certificates their last preflight blocks all the same. */
  readonly force: boolean;
  /**
   * The account's renewal calendar, when it declares anything: a certificate outside its windows
   * waits (unless waiting could let it expire), a disabled one is never sent. Unset: as before.
   */
  readonly calendar?: AccountCalendar | undefined;
  /** The renewal timer's next firing after a moment (CERTSCHED_RENEWAL_SCHEDULE), when known. */
  readonly nextTick?: ((after: Date) => Date | undefined) | undefined;
  /** Called as each certificate finishes (the CLI's progress line). */
  readonly onResult?:
    | ((result: CertificateResult, done: number, total: number) => void)
    | undefined;
}

/** Outcomes logged at error level: a person must look. */
const LOUD = new Set(["failed", "stuck", "blocked", "not-attempted", "deferred"]);

/**
 * Renews each planned certificate in a bounded pool (adaptive when a control is given): one
 * failing certificate never stops the others, and each gets exactly one result, in the plan's
 * order.
 */
export async function renewEach(
  run: SweepRun,
  plan: Plan,
  input: RenewEachInput,
): Promise<CertificateResult[]> {
  const { control, log } = input;
  const context = turnPorts(run, plan, input);
  const width = (): number =>
    plan.gate?.sequential ? 1 : control ? control.current() : input.concurrency;
  // The limit every process of the account shares, as it stands: only when renewals may go out.
  const total = plan.certificates.length;
  if (control && total > 0 && !input.dryRun && !run.stopped()) await control.refresh();
  let done = 0;
  const results = await runPool(plan.certificates, width, async (cert, _index, slot) => {
    const result = await turn(cert, slot, context, input).catch(sweepError(cert, input.now));
    if (LOUD.has(result.outcome)) log.error(resultLine(result));
    else log.info(resultLine(result));
    done += 1;
    input.onResult?.(result, done, total);
    return result;
  });
  if (control) {
    await control.settled();
    for (const warning of control.takeWarnings()) log.warn(warning);
  }
  return results;
}

function turnPorts(run: SweepRun, plan: Plan, input: RenewEachInput): TurnPorts {
  const { gate } = plan;
  const { calendar } = input;
  return {
    ledger: input.ledger,
    now: input.now,
    graceMs: input.graceMs,
    claimLeaseMs: input.claimLeaseMs,
    dryRun: input.dryRun,
    stopped: () => run.stopped(),
    ledgerFailed: (error) => run.ledgerFailed(error, input.dryRun, input.log),
    unresolved: (name) => {
      run.unresolved.push(name);
    },
    ...(gate ? { deferred: () => gate.deferred() } : {}),
    // Delivered again after an attempt died, a run counts its own earlier renewals as renewed.
    runId: run.id,
    preflightOf: (name) => input.preflights?.get(name),
    force: input.force,
    refused: (usage) => plan.refused(usage),
    ...(calendar ? { timingOf: timingOf(calendar, input.nextTick) } : {}),
  };
}

/** What the calendar says of a certificate at a moment, from its expiry and the timer. */
function timingOf(
  calendar: AccountCalendar,
  nextTick: RenewEachInput["nextTick"],
): NonNullable<TurnPorts["timingOf"]> {
  return (cert, now) =>
    calendar.timing(cert.certificateName, {
      now,
      expiry: cert.expiryDate,
      ...(nextTick ? { nextTick } : {}),
    });
}

/** One certificate's turn: its renewal requests observed, a 429 asked again until the deadline. */
function turn(
  cert: CertificateRecord,
  slot: PoolSlot,
  context: TurnPorts,
  input: RenewEachInput,
): Promise<CertificateResult> {
  const { control } = input;
  let epoch = control?.epoch() ?? 0;
  const observer: AttemptObserver | undefined = control && {
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
  };
  const onRetry = () => {
    epoch = control?.epoch() ?? 0;
  };
  return renewOne(cert, context, input.calls.renewal(cert, { observer, slot, onRetry }));
}

/** The result of a turn that threw: its certificate failed, the others go on. */
function sweepError(cert: CertificateRecord, now: () => Date) {
  return (error: unknown): CertificateResult => ({
    certificateName: cert.certificateName,
    id: cert.id,
    target: cert.target,
    expiryDate: cert.expiryDate.toISOString(),
    daysLeft: daysLeft(cert.expiryDate, now()),
    outcome: "failed",
    reason: "SweepError",
    ...describe(error),
  });
}
