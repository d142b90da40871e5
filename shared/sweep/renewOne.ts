import { daysLeft } from "../dates.js";
import { ensureError, isCertschedError, UpstreamError, ValidationError } from "../errors.js";
import type { Ledger, LedgerEntry, LedgerRecord } from "../ledger/ledger.js";
import { redact } from "../redact.js";
import type { CertificateRecord } from "../schemas/records.js";
import { decide } from "./decide.js";
import {
  type CertificateResult,
  notAttemptedDetail,
  type ResultReason,
  type StopReason,
} from "./summary.js";

/** What one certificate's turn needs from its sweep. */
export interface RenewContext {
  readonly client: { renewListed(certificate: CertificateRecord): Promise<string> };
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

const LEDGER_FAILED = Symbol("ledger failed");

/**
 * One certificate's turn: read its ledger row, decide, and when renewing, claim it (conditional
 * write), mark it sent (a second conditional write, just before sending), send, record the
 * answer. A sweep sends only after its "sent" write won, so a crash at any point leaves a row
 * that says truthfully whether a request may have left. Never throws.
 */
export async function renewOne(
  cert: CertificateRecord,
  ctx: RenewContext,
): Promise<CertificateResult> {
  const at = ctx.now();
  const base = {
    certificateName: cert.certificateName,
    id: cert.id,
    target: cert.target,
    expiryDate: cert.expiryDate.toISOString(),
    daysLeft: daysLeft(cert.expiryDate, at),
  };
  const result = (
    outcome: CertificateResult["outcome"],
    reason: ResultReason,
    detail: string,
    extra: { status?: number; error?: string } = {},
  ): CertificateResult => ({ ...base, outcome, reason, detail, ...extra });
  const notAttempted = (reason: StopReason) =>
    result("not-attempted", reason, notAttemptedDetail(reason));
  const ledgerCall = async <T>(call: () => Promise<T>): Promise<T | typeof LEDGER_FAILED> => {
    try {
      return await call();
    } catch (error) {
      ctx.ledgerFailed(error);
      return LEDGER_FAILED;
    }
  };

  const stoppedBefore = ctx.stopped();
  if (stoppedBefore) return notAttempted(stoppedBefore);

  let entry: LedgerEntry | undefined;
  try {
    entry = await ctx.ledger.read(cert.id);
  } catch (error) {
    if (error instanceof ValidationError) {
      // Neither "recently requested" nor "never requested" can be read from it: renewing could
      // order a second renewal, skipping could let the certificate expire. A person decides.
      return result(
        "failed",
        "LedgerRowInvalid",
        `${redact(error.message)}; not renewed: correct or delete the row (a deleted row starts a new renewal episode)`,
        { error: error.code },
      );
    }
    ctx.ledgerFailed(error);
    // In a dry run nothing is ordered: decide without the row rather than not at all.
    if (!ctx.dryRun) return notAttempted("LedgerUnavailable");
  }

  const verdict = decide({
    expiryDate: cert.expiryDate,
    record: entry?.record,
    now: at,
    graceMs: ctx.graceMs,
  });
  if (verdict.action === "skip") return result("skipped", verdict.reason, verdict.message);
  const stuck = verdict.action === "stuck";
  if (stuck && !verdict.renew) return result("stuck", verdict.reason, verdict.message);
  if (ctx.dryRun) return result(stuck ? "stuck" : "would-renew", verdict.reason, verdict.message);
  // The deadline may have passed while the row was read.
  const stoppedNow = ctx.stopped();
  if (stoppedNow) return notAttempted(stoppedNow);

  // 1. Claim: a concurrent sweep that read the same version loses this write and skips it.
  const previous = verdict.reason === "NewRenewal" ? undefined : entry?.record;
  const claim: LedgerRecord = {
    id: cert.id,
    certificateName: cert.certificateName,
    expiryAtRequest: cert.expiryDate,
    firstRequestedAt: previous?.firstRequestedAt,
    lastRequestedAt: previous?.lastRequestedAt,
    outcome: "claimed",
    attempts: previous?.attempts ?? 0,
    detail: undefined,
    claimedAt: at,
    reason: verdict.reason,
  };
  const claimed = await ledgerCall(() => ctx.ledger.write(claim, entry?.etag));
  if (claimed === LEDGER_FAILED) return notAttempted("LedgerUnavailable");
  if (claimed === "conflict") {
    return result("skipped", "ClaimLost", "another sweep is renewing it right now");
  }

  // 2. Sent, just before sending: only a won write lets the request go.
  const sentAt = ctx.now();
  const sent: LedgerRecord = {
    ...claim,
    outcome: "sent",
    firstRequestedAt: previous?.firstRequestedAt ?? sentAt,
    lastRequestedAt: sentAt,
    attempts: claim.attempts + 1,
  };
  const marked = await ledgerCall(() => ctx.ledger.write(sent, claimed.etag));
  if (marked === LEDGER_FAILED) {
    // Nothing was sent; the row says "claimed" (the next sweep renews after the lease) or, if
    // the write landed unseen, "sent" (it waits the grace). Either way the run must fail.
    ctx.unresolved(cert.certificateName);
    return notAttempted("LedgerUnavailable");
  }
  if (marked === "conflict") {
    return result("skipped", "ClaimLost", "another sweep took over the claim; it renews it");
  }

  // 3. Send, then record the answer.
  const record = async (final: LedgerRecord) => {
    const written = await ledgerCall(() => ctx.ledger.write(final, marked.etag));
    if (written === LEDGER_FAILED || written === "conflict") ctx.unresolved(cert.certificateName);
  };
  try {
    const message = await ctx.client.renewListed(cert);
    await record({ ...sent, outcome: stuck ? "stuck" : "renewal-scheduled", detail: message });
    return stuck
      ? result("stuck", verdict.reason, verdict.message)
      : result("renewal-scheduled", verdict.reason, message.trim() || "renewal scheduled");
  } catch (error) {
    const failure = describe(error);
    // No answer in time: the service may have scheduled it all the same. "answer-unknown"
    // keeps the request time, so the next sweeps wait out the grace instead of ordering a
    // second renewal; the run still fails and names the cause.
    const unanswered = isCertschedError(error) && error.code === "UPSTREAM_TIMEOUT";
    await record(
      unanswered
        ? { ...sent, outcome: "answer-unknown", detail: failure.detail }
        : {
            ...sent,
            // A refused request ordered nothing: the episode's request times stay as they were.
            firstRequestedAt: previous?.firstRequestedAt,
            lastRequestedAt: previous?.lastRequestedAt,
            outcome: "failed",
            detail: failure.detail,
          },
    );
    const { detail, ...extra } = failure;
    return result("failed", verdict.reason, detail, extra);
  }
}
