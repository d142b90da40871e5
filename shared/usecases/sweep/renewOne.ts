import { daysLeft } from "../../core/certificate/dates.js";
import type { CertificateRecord } from "../../core/certificate/records.js";
import type { QuotaUsage } from "../../core/ports/budget.js";
import type { PreflightRecord } from "../../core/ports/inventory.js";
import {
  ACCEPTED_OUTCOMES,
  type Ledger,
  type LedgerEntry,
  type LedgerRecord,
} from "../../core/ports/ledger.js";
import { QuotaExhaustedError } from "../../core/quota/budgetRules.js";
import { type ClaimAndSendResult, claimAndSend } from "../../core/renewal/claimAndSend.js";
import {
  answerUnknownRow,
  answerWindowMs,
  decide,
  type Verdict,
  type VerdictReason,
} from "../../core/renewal/decide.js";
import {
  type CertificateResult,
  notAttemptedDetail,
  type ResultReason,
  type StopReason,
  type WindowNote,
} from "../../core/renewal/summary.js";
import { heldReason, renewalDetail, windowNote } from "../../core/renewal/windowNote.js";
import type { Timing } from "../../core/windows/calendar.js";
import { ensureError, isCertschedError, UpstreamError, ValidationError } from "../../lib/errors.js";
import { redact } from "../../lib/redact/redact.js";

/**
 * Sends one certificate's renewal; `sending` is called as its bytes leave (its last byte held
 * until it resolves). Made by the sweep's calls for that certificate (sweepCalls.ts).
 */
export type SendRenewal = (sending: () => Promise<void>) => Promise<string>;

/** What one certificate's turn needs from its sweep (every certificate's turn shares it). */
export interface TurnPorts {
  readonly ledger: Ledger;
  readonly now: () => Date;
  readonly graceMs: number;
  readonly dryRun: boolean;
  /** Why no renewal may start any more, or undefined while they may. */
  stopped(): StopReason | undefined;
  /** A ledger call failed (LEDGER_UNAVAILABLE): the sweep records it and, renewing, stops. */
  ledgerFailed(error: unknown): void;
  /** A claim this sweep made that the ledger does not show resolved. */
  unresolved(certificateName: string): void;
  /** The run this sweep is (its ledger claims carry it), when it has one. */
  readonly runId?: string;
  /** The certificate's last preflight, read from the inventory once a sweep. */
  preflightOf?(certificateName: string): PreflightRecord | undefined;
  /** Renew a certificate its last preflight blocks all the same (`--force`). */
  readonly force?: boolean;
  /** CERTSCHED_CLAIM_LEASE in ms (decide.ts CLAIM_LEASE_MS when unset). */
  readonly claimLeaseMs?: number | undefined;
  /**
   * Asked right before a renewal would be sent (the request budget, CERTSCHED_SERVICE_QUOTA):
   * the detail of a "deferred" result when none may be sent, else undefined. Unset: always sent.
   */
  deferred?(): Promise<string | undefined>;
  /**
   * The detail of a "deferred" result for a renewal the shared budget refused as it was about to
   * be sent (another process took what was left): nothing reached the service.
   */
  refused?(usage: QuotaUsage): string;
  /**
   * What the account's renewal calendar says of the certificate at `at` (its windows, freezes and
   * policy). Unset: nothing declared, renewed whenever due.
   */
  timingOf?(cert: CertificateRecord, at: Date): Timing;
}

/** What a failure says, redacted: words, upstream status, error code. */
export function describe(error: unknown): { detail: string; status?: number; error?: string } {
  const e = ensureError(error);
  return {
    detail: redact(e.message),
    ...(e instanceof UpstreamError && e.status !== undefined ? { status: e.status } : {}),
    ...(isCertschedError(e) ? { error: e.code } : {}),
  };
}

/**
 * A renewal the service accepted within the grace, claimed by this very run: an earlier attempt
 * of it (delivered again after it died or could not record its outcome) renewed it. The run
 * counts it as renewed, with the service's answer then; undefined for anything else (another
 * run's renewal stays "skipped": this run did not renew it).
 */
function renewedEarlierByThisRun(
  record: LedgerRecord | undefined,
  runId: string | undefined,
  reason: VerdictReason,
): string | undefined {
  if (reason !== "WithinGrace" || !runId || record?.runId !== runId) return undefined;
  if (!record.outcome || !ACCEPTED_OUTCOMES.has(record.outcome)) return undefined;
  return `renewed by an earlier attempt of this run: ${record.detail?.trim() || "renewal scheduled"}`;
}

/** The row's unknown answer, for the result, when it is of this certificate's expiry. */
function answerUnknownOf(
  record: LedgerRecord | undefined,
  cert: CertificateRecord,
  at: Date,
  graceMs: number,
): Pick<CertificateResult, "answerUnknown"> {
  if (!record || !answerUnknownRow(record) || !record.lastRequestedAt) return {};
  if (record.expiryAtRequest.getTime() !== cert.expiryDate.getTime()) return {};
  const since = record.lastRequestedAt;
  return {
    answerUnknown: {
      since: since.toISOString(),
      ...(record.runId ? { runId: record.runId } : {}),
      overdue: at.getTime() - since.getTime() >= answerWindowMs(graceMs),
    },
  };
}

/**
 * One certificate's turn: read its ledger row, decide, and when renewing, claim it (conditional
 * write), mark it sent (a second conditional write, just before sending), send, record the
 * answer. A sweep sends only after its "sent" write won, so a crash at any point leaves a row
 * that says truthfully whether a request may have left. Never throws.
 */
export async function renewOne(
  cert: CertificateRecord,
  ctx: TurnPorts,
  send: SendRenewal,
): Promise<CertificateResult> {
  const at = ctx.now();
  const turn = new TurnResults({
    certificateName: cert.certificateName,
    id: cert.id,
    target: cert.target,
    expiryDate: cert.expiryDate.toISOString(),
    daysLeft: daysLeft(cert.expiryDate, at),
  });
  const stoppedBefore = ctx.stopped();
  if (stoppedBefore) return turn.notAttempted(stoppedBefore);
  // Disabled by its policy: never renewed, its ledger row neither read nor written.
  const timing = ctx.timingOf?.(cert, at);
  if (timing?.kind === "disabled") return turn.held(timing);

  const read = await readRow(cert, ctx, turn);
  if ("result" in read) return read.result;
  const { entry } = read;

  turn.waiting = answerUnknownOf(entry?.record, cert, at, ctx.graceMs);
  const verdict = decide({
    expiryDate: cert.expiryDate,
    record: entry?.record,
    now: at,
    graceMs: ctx.graceMs,
    claimLeaseMs: ctx.claimLeaseMs,
    preflight: ctx.preflightOf?.(cert.certificateName),
    force: ctx.force,
  });
  const decided = decidedResult(verdict, entry, ctx, turn, timing);
  if (decided) return decided;
  const held = await heldBack(ctx, turn);
  if (held) return held;

  const stuck = verdict.action === "stuck";
  const previous = verdict.reason === "NewRenewal" ? undefined : entry?.record;
  const sent = await claimAndSend({
    cert,
    entry,
    previous,
    reason: verdict.reason,
    stuck,
    ledger: ctx.ledger,
    claimedAt: at,
    now: ctx.now,
    send,
    runId: ctx.runId,
    ledgerFailed: ctx.ledgerFailed,
    unresolved: () => ctx.unresolved(cert.certificateName),
    describe,
  });
  return sentResult(sent, verdict, stuck, ctx, turn);
}

/** The fields of every result of a certificate's turn, from the certificate itself. */
type ResultBase = Pick<
  CertificateResult,
  "certificateName" | "id" | "target" | "expiryDate" | "daysLeft"
>;

/** Builds one turn's results; each carries what the turn has learnt by then. */
class TurnResults {
  /** Set once decided: the run was forced past the certificate's last preflight. */
  forced: { forcedPast?: NonNullable<CertificateResult["forcedPast"]> } = {};
  /** Set once read: the row waits on an unknown answer; cleared once asked again. */
  waiting: Pick<CertificateResult, "answerUnknown"> = {};
  /** Set once it would be sent: what its renewal calendar says (inside a window, or outside). */
  window: { window?: WindowNote } = {};

  constructor(private readonly base: ResultBase) {}

  result(
    outcome: CertificateResult["outcome"],
    reason: ResultReason,
    detail: string,
    extra: { status?: number; error?: string } = {},
  ): CertificateResult {
    const note = this.window.window;
    const renewed = outcome === "renewal-scheduled" || outcome === "would-renew";
    const said = renewed ? renewalDetail(note, detail) : detail;
    return {
      ...this.base,
      outcome,
      reason,
      detail: said,
      ...extra,
      ...this.forced,
      ...this.waiting,
      ...this.window,
    };
  }

  /**
   * A certificate its calendar holds back: disabled by its policy, or waiting for its window (or
   * the end of a freeze). Nothing claimed, nothing sent.
   */
  held(timing: Timing): CertificateResult {
    const note = windowNote(timing);
    const reason = heldReason(timing) ?? "OutsideWindow";
    const outcome = timing.kind === "disabled" ? "disabled" : "waiting";
    return {
      ...this.result(outcome, reason, note?.detail ?? ""),
      ...(note ? { window: note } : {}),
    };
  }

  notAttempted(reason: StopReason): CertificateResult {
    return this.result("not-attempted", reason, notAttemptedDetail(reason));
  }
}

/** Reads the certificate's ledger row; a row that cannot be read ends the turn (`result`). */
async function readRow(
  cert: CertificateRecord,
  ctx: TurnPorts,
  turn: TurnResults,
): Promise<{ entry: LedgerEntry | undefined } | { result: CertificateResult }> {
  try {
    return { entry: await ctx.ledger.read(cert.id) };
  } catch (error) {
    if (error instanceof ValidationError) {
      // Neither "recently requested" nor "never requested" can be read from it: renewing could
      // order a second renewal, skipping could let the certificate expire. A person decides.
      return {
        result: turn.result(
          "failed",
          "LedgerRowInvalid",
          `${redact(error.message)}; not renewed: correct or delete the row (a deleted row starts a new renewal episode)`,
          { error: error.code },
        ),
      };
    }
    ctx.ledgerFailed(error);
    // In a dry run nothing is ordered: decide without the row rather than not at all.
    if (!ctx.dryRun) return { result: turn.notAttempted("LedgerUnavailable") };
    return { entry: undefined };
  }
}

/** The result when the verdict (or a dry run) sends nothing; undefined when it renews. */
function decidedResult(
  verdict: Verdict,
  entry: LedgerEntry | undefined,
  ctx: TurnPorts,
  turn: TurnResults,
  timing: Timing | undefined,
): CertificateResult | undefined {
  // Nothing claimed, nothing sent, nothing counted: a person must act first.
  if (verdict.action === "blocked") {
    return {
      ...turn.result("blocked", verdict.reason, verdict.message),
      blockedBy: verdict.blockedBy,
    };
  }
  if ("forcedPast" in verdict && verdict.forcedPast)
    turn.forced = { forcedPast: verdict.forcedPast };
  if (verdict.action === "skip") {
    const own = renewedEarlierByThisRun(entry?.record, ctx.runId, verdict.reason);
    return own === undefined
      ? turn.result("skipped", verdict.reason, verdict.message)
      : turn.result("renewal-scheduled", "EarlierAttempt", own);
  }
  const stuck = verdict.action === "stuck";
  if (stuck && !verdict.renew) return turn.result("stuck", verdict.reason, verdict.message);
  // It would be sent: outside its windows (or frozen) it waits unless waiting is unsafe. A stuck
  // one stays stuck (the run still fails), only its request waits for the window.
  if (timing?.kind === "waiting" && stuck) {
    const note = windowNote(timing);
    turn.window = note ? { window: note } : {};
    const said = verdict.message.replace(/; requesting again$/, "");
    return turn.result(
      "stuck",
      verdict.reason,
      `${said}; asked again in its window (${note?.detail ?? ""})`,
    );
  }
  if (timing?.kind === "waiting") return turn.held(timing);
  const note = timing && windowNote(timing);
  if (note) turn.window = { window: note };
  if (ctx.dryRun) {
    turn.waiting = {};
    return turn.result(stuck ? "stuck" : "would-renew", verdict.reason, verdict.message);
  }
  return undefined;
}

/** The result when the sweep may no longer send (stopped, out of budget); else undefined. */
async function heldBack(ctx: TurnPorts, turn: TurnResults): Promise<CertificateResult | undefined> {
  // The deadline may have passed while the row was read.
  const stoppedNow = ctx.stopped();
  if (stoppedNow) return turn.notAttempted(stoppedNow);
  const deferred = await ctx.deferred?.();
  if (deferred !== undefined) return turn.result("deferred", "QuotaReached", deferred);
  return undefined;
}

/** The result of a renewal claimAndSend took as far as it could. */
function sentResult(
  sent: ClaimAndSendResult,
  verdict: Verdict,
  stuck: boolean,
  ctx: TurnPorts,
  turn: TurnResults,
): CertificateResult {
  // Asked again (or another sweep is asking): no longer left waiting by this sweep.
  if (sent.kind !== "ledger-failed") turn.waiting = {};
  switch (sent.kind) {
    case "ledger-failed":
      return turn.notAttempted("LedgerUnavailable");
    case "conflict":
      return turn.result(
        "skipped",
        "ClaimLost",
        sent.step === "claim"
          ? "another sweep is renewing it right now"
          : "another sweep took over the claim; it renews it",
      );
    case "answered":
      return stuck
        ? turn.result("stuck", verdict.reason, verdict.message)
        : turn.result(
            "renewal-scheduled",
            verdict.reason,
            sent.message.trim() || "renewal scheduled",
          );
    default: {
      if (sent.kind === "refused" && sent.error instanceof QuotaExhaustedError) {
        // Refused before it left: nothing was ordered, and the ledger says "failed" (so the next
        // sweep asks again). The result is the budget's, not the service's.
        const detail =
          ctx.refused?.(sent.error.usage) ??
          `${redact(sent.error.message)}; the next sweep will decide it`;
        return turn.result("deferred", "QuotaReached", detail);
      }
      const { detail, ...extra } = describe(sent.error);
      return turn.result("failed", verdict.reason, detail, extra);
    }
  }
}
