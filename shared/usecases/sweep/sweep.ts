import type { ConcurrencyControl } from "../../core/ports/concurrency.js";
import type { Inventory } from "../../core/ports/inventory.js";
import type { Ledger } from "../../core/ports/ledger.js";
import type { TraceParent } from "../../core/ports/telemetry.js";
import type { Tokens } from "../../core/ports/tokens.js";
import type { CertificateResult, SweepSummary } from "../../core/renewal/summary.js";
import type { Settings } from "../../core/settings.js";
import { AccountCalendar } from "../../core/windows/timing.js";
import type { Logger } from "../../lib/log.js";
import type { AfterSweepVerification } from "../afterSweepVerification.js";
import { type LastKnown, lastKnown } from "../steps/preflightGate.js";
import { type BookkeepingPorts, bookkeeping } from "./bookkeeping.js";
import { type Listing, listDue } from "./list.js";
import { openLedger } from "./openLedger.js";
import { budgetOf, type Plan, planRenewals } from "./plan.js";
import { renewEach } from "./renewEach.js";
import type { BookkeepingStep } from "./runSteps.js";
import { summarize } from "./summarize.js";
import { type SweepClient, sweepCalls } from "./sweepCalls.js";
import { type RunSettings, type RunStart, SweepRun } from "./sweepRun.js";
import { type SweepTelemetry, sweepTelemetry } from "./telemetryOf.js";

/** What a sweep needs: the service, the stores, the settings, and what its bookkeeping needs. */
export type SweepPorts = BookkeepingPorts & {
  readonly settings: RunSettings &
    Pick<
      Settings,
      "renewalConcurrency" | "renewalGraceMs" | "dryRun" | "serviceQuota" | "claimLeaseMs"
    > &
    Partial<Pick<Settings, "renewalCalendar">>;
  /** The account swept (its renewal calendar's jitter is its own); default "default". */
  readonly account?: string;
  /**
   * The renewal timer's next firing after a moment (CERTSCHED_RENEWAL_SCHEDULE), when set: a
   * certificate is renewed outside its windows at the last firing that is still safe.
   */
  readonly renewalTimer?: ((after: Date) => Date | undefined) | undefined;
  readonly client: SweepClient;
  readonly ledger: Ledger;
  /** Where the listed certificates are remembered, and the last preflights read from. */
  readonly inventory: Inventory;
  /** Adaptive concurrency; unset, or a --concurrency given: a fixed width. */
  readonly concurrency?: ConcurrencyControl;
  readonly tokens: Pick<Tokens, "onWarning">;
  /** The telemetry, started on first call; a sweep goes on without it when it cannot start. */
  telemetry(): Promise<SweepTelemetry>;
};

/** How a sweep is asked for: by whom, and what it may change of its settings. */
export interface SweepOptions extends RunStart {
  /** Overrides CERTSCHED_DRY_RUN when given. */
  readonly dryRun?: boolean;
  /** Overrides CERTSCHED_RENEWAL_CONCURRENCY when given (and fixes the width). */
  readonly concurrency?: number;
  /** Called as each certificate finishes (the CLI's progress line). */
  readonly onResult?: (result: CertificateResult, done: number, total: number) => void;
  /** The invocation's trace context (InvocationContext.traceContext): the span's parent. */
  readonly traceContext?: TraceParent | undefined;
  /** Trusted certificates for verifying earlier renewals, instead of Node's store (tests). */
  readonly verifyCa?: readonly string[];
  /** Renew certificates their last preflight blocks all the same (`--force`, `?force=true`). */
  readonly force?: boolean;
}

/**
 * A sweep's summary and, when it verified earlier renewals, what that found; `bookkeeping` names
 * the steps after the renewals not done inside the run's time (absent: all done).
 */
export type SweepReport = SweepSummary & {
  readonly verification?: AfterSweepVerification;
  readonly bookkeeping?: { readonly incomplete: readonly BookkeepingStep[] };
};

/**
 * The renewal sweep: begin the run, read what the last preflights and verifications said,
 * renew what is due inside the sweep's telemetry span, then do the bookkeeping in what is left
 * of the run's time. Never throws for a certificate, the list or the ledger: each is in the
 * summary, and `failed` says whether the run must be reported failed.
 */
export async function sweep(
  ports: SweepPorts,
  log: Logger,
  options: SweepOptions = {},
): Promise<SweepReport> {
  const run = new SweepRun(ports.settings, options);
  const telemetry = await sweepTelemetry(ports, log);
  // A token that arrives already expiring is used for the sweep anyway; this sweep's log says so.
  const stopTokenWarnings = ports.tokens.onWarning((m) => log.warn(m));
  const known = await lastKnown(ports.inventory, log);
  const renewed = await telemetry.inSweepSpan(
    () => renewDue(run, ports, log, options, known).then((r) => r.summary),
    options.traceContext,
  );
  run.renewalsOver();
  stopTokenWarnings();
  telemetry.recordSweep(renewed);
  const done = await bookkeeping(run, ports, log, {
    summary: renewed,
    telemetry,
    inventoryWrite: run.inventoryWrite,
    served: known?.served,
    verifyCa: options.verifyCa,
  });
  return {
    ...renewed,
    ...(done.verification ? { verification: done.verification } : {}),
    ...(done.incomplete.length > 0 ? { bookkeeping: { incomplete: done.incomplete } } : {}),
  };
}

/** The renewals: open the ledger, list, plan, renew each, summarize. */
export async function renewDue(
  run: SweepRun,
  ports: SweepPorts,
  log: Logger,
  options: SweepOptions,
  known: LastKnown | undefined,
): Promise<{ readonly summary: SweepSummary }> {
  const { settings, now } = ports;
  const dryRun = options.dryRun ?? settings.dryRun;
  const force = options.force === true;
  run.beginRenewals(now);
  const calendar = calendarOf(ports, log);
  const ledger = await openLedger(run, ports.ledger, dryRun, log);
  const calls = sweepCalls(ports.client, run.context, run.deadline);
  const listed = await listDue(run, calls, ports, log);
  run.inventoryWrite = listed.inventoryWrite;
  const budget = budgetOf(run, ports.requests, settings.serviceQuota);
  const summaryOf = (listing: Listing, results: CertificateResult[], plan?: Plan) =>
    summarize(run, { listing, plan, results, budget, dryRun, force, log, now });
  if (listed.listing.kind === "failed") return { summary: await summaryOf(listed.listing, []) };
  const plan = await planRenewals(run, listed.listing.due.certificates, budget, {
    log,
    now,
    dryRun,
  });
  const results = await renewEach(run, plan, {
    calls,
    ledger,
    log,
    now,
    concurrency: options.concurrency ?? settings.renewalConcurrency,
    control: options.concurrency === undefined ? ports.concurrency : undefined,
    graceMs: settings.renewalGraceMs,
    claimLeaseMs: settings.claimLeaseMs || undefined,
    dryRun,
    preflights: known?.preflights,
    force,
    onResult: options.onResult,
    calendar,
    nextTick: ports.renewalTimer,
  });
  return { summary: await summaryOf(listed.listing, results, plan) };
}

/**
 * The account's renewal calendar when it declares anything (undefined: renewed whenever due, as
 * before); its load's warnings are logged once, as the sweep begins.
 */
function calendarOf(ports: SweepPorts, log: Logger): AccountCalendar | undefined {
  const declared = ports.settings.renewalCalendar;
  if (!declared) return undefined;
  for (const warning of declared.warnings) log.warn(`certsched renewal calendar: ${warning}`);
  const calendar = new AccountCalendar(declared, ports.account ?? "default");
  return calendar.restricted ? calendar : undefined;
}
