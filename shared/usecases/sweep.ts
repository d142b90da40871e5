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
import type { SweepSummary } from "../core/renewal/summary.js";
import type { Settings } from "../core/settings.js";
import { guardedTelemetry } from "../core/telemetry/guardedTelemetry.js";
import { ensureError } from "../lib/errors.js";
import type { Logger } from "../lib/log.js";
import { redact } from "../lib/redact/redact.js";
import type { AfterSweepVerification, verifyAfterSweep } from "./afterSweepVerification.js";
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
  >;
  readonly client: Pick<ServiceOperations, "listDue" | "renewListed">;
  readonly ledger: Ledger;
  readonly history: History;
  /** Where the listed certificates are remembered (issue 12). */
  readonly inventory: Inventory;
  /** The request budget (issue 16): the sweep's requests are counted and, with a quota, reserved. */
  readonly requests: RequestLog;
  readonly notifier: Notifier;
  /** Adaptive concurrency (issue 22); unset, or a --concurrency given: a fixed width. */
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
}

/** A sweep's summary and, when it verified earlier renewals, what that found. */
export type SweepWithSummary = SweepSummary & { readonly verification?: AfterSweepVerification };

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
 * The sweep with the settings of its ports, inside its telemetry span; then the summary is
 * recorded (telemetry, the run history) and, when the settings ask, posted to the webhook.
 * Telemetry, history and notification failures are logged and never change the summary.
 */
export async function sweepWith(
  ports: SweepPorts,
  log: Logger,
  options: SweepWithOptions = {},
): Promise<SweepWithSummary> {
  // From the start of the invocation's work: telemetry may take a moment to start.
  const deadline = AbortSignal.timeout(ports.settings.sweepDeadlineMs);
  const telemetry = guardedTelemetry(await telemetryOf(ports, log), (m) => log.warn(m));
  // A token that arrives already expiring is used for the sweep anyway; this sweep's log says so.
  const stopTokenWarnings = ports.tokens.onWarning((m) => log.warn(m));
  // Issue 12: the records the sweep lists are kept for the inventory (rootDomain, vault).
  const listing = listingTap(ports.client);
  // One id for the ledger's claims and the history's records of this sweep.
  const runId = options.runId ?? randomUUID();
  // Issue 23: each certificate's last preflight, once a sweep; one that blocks is not renewed.
  const known = await lastKnown(ports.inventory, log);
  const preflights = known?.preflights;
  const summary = await telemetry.inSweepSpan(
    () =>
      runSweep({
        client: listing.client,
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
        // The request budget (issue 16): requests counted under the run's trigger.
        trigger: options.trigger ?? "timer",
        budget: { requests: ports.requests, quota: ports.settings.serviceQuota },
        runId,
        ...(preflights ? { preflights } : {}),
        ...(options.force ? { force: true } : {}),
      }),
    options.traceContext,
  );
  stopTokenWarnings(); // runSweep never throws, and the guarded span never does either.
  // Before anything verifies them; a failure is a warning, never the sweep's.
  await listing.remember(ports, log);
  telemetry.recordSweep(summary);
  const { events, record } = sweepHistory(
    summary,
    {
      runId,
      trigger: options.trigger ?? "timer",
      finishedAt: ports.now(),
    },
    known?.served,
  );
  const trigger = options.trigger ?? "timer";
  // Issue 12: earlier sweeps' renewals, verified once CERTSCHED_VERIFY_WINDOW has passed. Its
  // outcome rides along in the summary; the sweep's own `failed` stays the sweep's.
  // The verification code (and the TLS probe behind it) loads once the sweep is done, so a
  // sweep's first request is never kept waiting for it (issue 25).
  const verifyEarlier: Promise<AfterSweepVerification | undefined> = summary.dryRun
    ? Promise.resolve(undefined)
    : Promise.all([import("./afterSweepVerification.js"), import("./verify.js")]).then(
        ([after, verify]) =>
          after.verifyAfterSweep(ports, log, {
            trigger,
            deadline,
            verify: (names) =>
              verify.verifyWith(ports, log, {
                trigger,
                names,
                scope: "after-sweep",
                signal: deadline,
                ...(options.verifyCa ? { ca: options.verifyCa } : {}),
              }),
          }),
      );
  const [verification] = await Promise.all([
    verifyEarlier,
    recordHistory(ports.history, log, events, record),
    ports.notifier.notify(summary, log).catch((error: unknown) => {
      log.warn(`certsched webhook notification failed: ${redact(ensureError(error).message)}`);
    }),
    telemetry.flush(),
  ]);
  return verification ? { ...summary, verification } : summary;
}
