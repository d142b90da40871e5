import { randomUUID } from "node:crypto";
import type { CertificateEvent, EventKind, RunRecord, Trigger } from "../../core/history/events.js";
import type { History } from "../../core/ports/history.js";
import { MANUAL_REQUEST, type Requester } from "../../core/renewal/requester.js";
import {
  type CertificateResult,
  forcedDetail,
  type SweepSummary,
} from "../../core/renewal/summary.js";
import type { ServedFacts } from "../../core/verification/served.js";
import { ensureError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { redact } from "../../lib/redact/redact.js";

/** The history event a sweep result is, or undefined when nothing happened (a dry run's). */
function eventOf(result: CertificateResult): EventKind | undefined {
  switch (result.outcome) {
    case "would-renew":
      return undefined;
    case "failed":
      // Sent, no answer in time: the ledger holds it as "answer-unknown" too.
      return result.error === "UPSTREAM_TIMEOUT" ? "answer-unknown" : "failed";
    default:
      return result.outcome;
  }
}

/** The `before` a renewal's acceptance carries (its receipt), when known. */
export function withBefore(
  event: EventKind,
  before: ServedFacts | undefined,
): { before?: ServedFacts } {
  return event === "renewal-scheduled" && before ? { before } : {};
}

/** A finished sweep as history: one event per certificate (none for a dry run), one run record. */
export function sweepHistory(
  summary: SweepSummary,
  run: { readonly runId: string; readonly trigger: Trigger; readonly finishedAt: Date },
  /** What each certificate's inventory row last saw served (a renewal's `before`). */
  served?: ReadonlyMap<string, ServedFacts>,
): { events: CertificateEvent[]; record: RunRecord } {
  const events: CertificateEvent[] = [];
  if (!summary.dryRun) {
    for (const r of summary.results) {
      const event = eventOf(r);
      if (!event) continue;
      events.push({
        at: run.finishedAt,
        certificateName: r.certificateName,
        id: r.id,
        event,
        trigger: run.trigger,
        runId: run.runId,
        reason: r.reason,
        detail: redact(forcedDetail(r)),
        status: r.status,
        error: r.error,
        expiryDate: new Date(r.expiryDate),
        ...withBefore(event, served?.get(r.certificateName)),
      });
    }
  }
  const record: RunRecord = {
    runId: run.runId,
    trigger: run.trigger,
    startedAt: new Date(summary.startedAt),
    finishedAt: run.finishedAt,
    dryRun: summary.dryRun,
    ...(summary.forced ? { forced: true } : {}),
    failed: summary.failed,
    ledger: summary.ledger,
    counts: summary.counts,
    problems: summary.problems.map((p) => redact(p)),
  };
  return { events, record };
}

/**
 * Appends to the history; a failure is a warning and nothing more: recording what happened must
 * never fail, delay past its own timeout, or change the work it records.
 */
export async function recordHistory(
  history: History,
  log: Logger,
  events: readonly CertificateEvent[],
  run?: RunRecord,
): Promise<boolean> {
  if (history.kind === "none") return false;
  try {
    await history.append(events, run);
    return true;
  } catch (error) {
    log.warn(
      `certsched could not record the run history (the work itself is done and in the ledger): ${redact(ensureError(error).message)}`,
    );
    return false;
  }
}

/**
 * A renewal by name refused before anything was sent (its last preflight blocks it, or its policy
 * disables it), in the history: who asked, and why nothing went out. Returns the words.
 */
export async function recordRefusedRequest(
  history: History,
  log: Logger,
  request: {
    readonly certificateName: string;
    readonly requester: Requester;
    readonly at: Date;
    readonly event: "blocked" | "disabled";
    readonly reason: "PreflightBlocked" | "PolicyDisabled";
    readonly detail: string;
  },
): Promise<string> {
  const common = {
    at: request.at,
    certificateName: request.certificateName,
    trigger: request.requester.trigger,
    runId: randomUUID(),
  };
  await recordHistory(history, log, [
    { ...common, event: "manual-request", by: request.requester.by, reason: MANUAL_REQUEST },
    { ...common, event: request.event, reason: request.reason, detail: request.detail },
  ]);
  return request.detail;
}
