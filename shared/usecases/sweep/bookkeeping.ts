import type { History } from "../../core/ports/history.js";
import type { Notifier } from "../../core/ports/notifier.js";
import type { RequestLog } from "../../core/ports/requestLog.js";
import type { SweepSummary } from "../../core/renewal/summary.js";
import type { ServedFacts } from "../../core/verification/served.js";
import { ensureError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { redact } from "../../lib/redact/redact.js";
import type { AfterSweepVerification } from "../afterSweepVerification.js";
import { recordHistory, sweepHistory } from "../steps/recordRun.js";
import {
  BOOKKEEPING_STEPS,
  type BookkeepingStep,
  runSteps,
  type Step,
  sweepDeadline,
  urgent,
  type VerifyEarlierPorts,
  verifyEarlier,
  within,
} from "./runSteps.js";
import type { SweepRun } from "./sweepRun.js";
import type { SweepTelemetry } from "./telemetryOf.js";

/** What the bookkeeping writes to and reads from. */
export type BookkeepingPorts = VerifyEarlierPorts & {
  readonly history: History;
  readonly notifier: Notifier;
  readonly requests: RequestLog;
  readonly now: () => Date;
};

/** What the bookkeeping did not finish inside the run's time, and what verification found. */
export interface Bookkept {
  readonly incomplete: readonly BookkeepingStep[];
  readonly verification: AfterSweepVerification | undefined;
}

/** What the bookkeeping is given besides its ports. */
export interface BookkeepingInput {
  readonly summary: SweepSummary;
  readonly telemetry: SweepTelemetry;
  /** The inventory written from the due list, in flight since the list. */
  readonly inventoryWrite: Promise<boolean>;
  /** What each certificate last served (a renewal's `before`). */
  readonly served: ReadonlyMap<string, ServedFacts> | undefined;
  /** Trusted certificates for verifying earlier renewals, instead of Node's store (tests). */
  readonly verifyCa?: readonly string[] | undefined;
}

/**
 * What a sweep does after its renewals, in the order a person needs it: the run row (naming
 * the steps still to do) with the failed and not-attempted certificates' events, and the
 * webhook; then the other events, the inventory, the verification of earlier renewals, the
 * telemetry, each in what is left of the run's time; last, the run row again with what was not
 * done. Failures are logged and never change the summary.
 */
export async function bookkeeping(
  run: SweepRun,
  ports: BookkeepingPorts,
  log: Logger,
  input: BookkeepingInput,
): Promise<Bookkept> {
  const { events, record } = sweepHistory(
    input.summary,
    { runId: run.id, trigger: run.trigger, finishedAt: ports.now() },
    input.served,
  );
  const countLost: BookkeepingStep[] =
    ports.requests.kind !== "none" && input.summary.requests7d === undefined
      ? ["request-count"]
      : [];
  const pending = { ...record, bookkeeping: { incomplete: [...countLost, ...BOOKKEEPING_STEPS] } };
  await within(urgentFirst(ports, log, input.summary, events, pending), run.left(), undefined);
  let verification: AfterSweepVerification | undefined;
  const steps = laterSteps(run, ports, log, input, events, (found) => {
    verification = found;
  });
  const incomplete = [...countLost, ...(await runSteps(steps, run.endAt))];
  if (incomplete.length > 0) {
    log.warn(
      `certsched run ${run.id}: not done inside the run's time: ${incomplete.join(", ")} (the run's history row names them; the next run writes the inventory again and verifies what this one did not)`,
    );
  }
  // Last: the run row again, with what was not done (absent: everything was). Half the margin
  // left at the end of the timeout is its own.
  const final = { ...record, ...(incomplete.length > 0 ? { bookkeeping: { incomplete } } : {}) };
  const lastMs = (run.start + run.budget.functionTimeoutMs + run.endAt) / 2 - performance.now();
  await within(recordHistory(ports.history, log, [], final), lastMs, false);
  return { incomplete, verification };
}

type SweepEvents = ReturnType<typeof sweepHistory>["events"];
type RunRecord = Parameters<typeof recordHistory>[3];

/** First what a person needs: the names (the run row, their events) and the webhook. */
function urgentFirst(
  ports: BookkeepingPorts,
  log: Logger,
  summary: SweepSummary,
  events: SweepEvents,
  record: RunRecord,
): Promise<unknown> {
  return Promise.all([
    recordHistory(ports.history, log, events.filter(urgent), record),
    ports.notifier.notify(summary, log).catch((error: unknown) => {
      log.warn(`certsched webhook notification failed: ${redact(ensureError(error).message)}`);
    }),
  ]);
}

/** The steps after the urgent ones; a step that fails has said so in its warning. */
function laterSteps(
  run: SweepRun,
  ports: BookkeepingPorts,
  log: Logger,
  input: BookkeepingInput,
  events: SweepEvents,
  verified: (found: AfterSweepVerification | undefined) => void,
): Step[] {
  return [
    {
      name: "events",
      run: async () => {
        const rest = events.filter((e) => !urgent(e));
        if (rest.length > 0) await recordHistory(ports.history, log, rest);
        return true;
      },
    },
    { name: "inventory", run: () => input.inventoryWrite.then(() => true) },
    {
      name: "verification",
      run: async (step) => {
        // Without a run budget (the CLI): none starts after the sweep's deadline.
        const signal = run.timed ? step : sweepDeadline(run.start + run.budget.sweepDeadlineMs);
        const options = { trigger: run.trigger, signal, ca: input.verifyCa };
        verified(await verifyEarlier(ports, log, input.summary, options));
        return !signal.aborted;
      },
    },
    { name: "telemetry", run: () => input.telemetry.flush().then(() => true) },
  ];
}
