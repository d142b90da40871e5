import { isCertschedError } from "../../lib/errors.js";
import type { Ledger, LedgerEntry, LedgerRecord } from "../ports/ledger.js";

/** The certificate a renewal is for, as the service lists (or gets) it. */
export interface ClaimTarget {
  readonly id: number;
  readonly certificateName: string;
  readonly expiryDate: Date;
}

export interface ClaimAndSendInput {
  readonly cert: ClaimTarget;
  /** The row read just before (its etag makes the claim conditional); undefined: none. */
  readonly entry: LedgerEntry | undefined;
  /** The record of this renewal episode, or undefined when this request starts a new one. */
  readonly previous: LedgerRecord | undefined;
  /** Reason constant stored with the claim (decide.ts VerdictReason, or "ManualRequest"). */
  readonly reason: string;
  /** A stuck certificate asked for again: an accepted answer is recorded "stuck". */
  readonly stuck: boolean;
  readonly ledger: Ledger;
  /** When the renewal was decided: the claim's lease starts then. */
  readonly claimedAt: Date;
  /** The clock for the "sent" time. */
  readonly now: () => Date;
  /** Sends the renewal; resolves with the service's confirmation. */
  readonly send: () => Promise<string>;
  /** A ledger call threw (LEDGER_UNAVAILABLE). */
  readonly ledgerFailed: (error: unknown) => void;
  /** The final write did not land: the row still says "sent". */
  readonly unresolved: () => void;
  /** The failure's words, redacted (renewOne's describe). */
  readonly describe: (error: unknown) => { detail: string };
  /** The run (the sweep's runId) making the claim, kept on the row; none for a person's. */
  readonly runId?: string | undefined;
}

/** How far a renewal got. Only "answered" and "refused"/"unanswered" sent a request. */
export type ClaimAndSendResult =
  /** Nothing sent: a ledger write failed ("claim" or "sent" step). */
  | { readonly kind: "ledger-failed"; readonly step: "claim" | "sent" }
  /** Nothing sent: another writer got there first. */
  | { readonly kind: "conflict"; readonly step: "claim" | "sent" }
  | { readonly kind: "answered"; readonly message: string }
  /** Sent, no answer in time: recorded "answer-unknown". */
  | { readonly kind: "unanswered"; readonly error: unknown }
  /** Sent and refused (or failed before it could be acted on): recorded "failed". */
  | { readonly kind: "refused"; readonly error: unknown };

const LEDGER_FAILED = Symbol("ledger failed");

/**
 * Claim (conditional write), mark sent (a second conditional write, just before sending), send,
 * record the answer: the steps every renewal takes, the sweep's and a person's alike. A request
 * is sent only after the "sent" write won, so a crash at any point leaves a row that says
 * truthfully whether a request may have left. Never throws.
 */
export async function claimAndSend(input: ClaimAndSendInput): Promise<ClaimAndSendResult> {
  const { cert, previous, ledger } = input;
  const ledgerCall = async <T>(call: () => Promise<T>): Promise<T | typeof LEDGER_FAILED> => {
    try {
      return await call();
    } catch (error) {
      input.ledgerFailed(error);
      return LEDGER_FAILED;
    }
  };

  // 1. Claim: a concurrent writer that read the same version loses this write.
  const claim: LedgerRecord = {
    id: cert.id,
    certificateName: cert.certificateName,
    expiryAtRequest: cert.expiryDate,
    firstRequestedAt: previous?.firstRequestedAt,
    lastRequestedAt: previous?.lastRequestedAt,
    outcome: "claimed",
    attempts: previous?.attempts ?? 0,
    detail: undefined,
    claimedAt: input.claimedAt,
    reason: input.reason,
    ...(input.runId ? { runId: input.runId } : {}),
  };
  const claimed = await ledgerCall(() => ledger.write(claim, input.entry?.etag));
  if (claimed === LEDGER_FAILED) return { kind: "ledger-failed", step: "claim" };
  if (claimed === "conflict") return { kind: "conflict", step: "claim" };

  // 2. Sent, just before sending: only a won write lets the request go.
  const sentAt = input.now();
  const sent: LedgerRecord = {
    ...claim,
    outcome: "sent",
    firstRequestedAt: previous?.firstRequestedAt ?? sentAt,
    lastRequestedAt: sentAt,
    attempts: claim.attempts + 1,
  };
  const marked = await ledgerCall(() => ledger.write(sent, claimed.etag));
  if (marked === LEDGER_FAILED) {
    // Nothing was sent; the row says "claimed" (renewed after the lease) or, if the write
    // landed unseen, "sent" (waits the grace). Either way the caller must say so.
    input.unresolved();
    return { kind: "ledger-failed", step: "sent" };
  }
  if (marked === "conflict") return { kind: "conflict", step: "sent" };

  // 3. Send, then record the answer.
  const record = async (final: LedgerRecord) => {
    const written = await ledgerCall(() => ledger.write(final, marked.etag));
    if (written === LEDGER_FAILED || written === "conflict") input.unresolved();
  };
  try {
    const message = await input.send();
    await record({
      ...sent,
      outcome: input.stuck ? "stuck" : "renewal-scheduled",
      detail: message,
    });
    return { kind: "answered", message };
  } catch (error) {
    const { detail } = input.describe(error);
    // No answer in time: the service may have scheduled it all the same. "answer-unknown"
    // keeps the request time, so the next sweeps wait out the grace instead of ordering a
    // second renewal.
    if (isCertschedError(error) && error.code === "UPSTREAM_TIMEOUT") {
      await record({ ...sent, outcome: "answer-unknown", detail });
      return { kind: "unanswered", error };
    }
    // A refused request ordered nothing: the episode's request times stay as they were.
    await record({
      ...sent,
      firstRequestedAt: previous?.firstRequestedAt,
      lastRequestedAt: previous?.lastRequestedAt,
      outcome: "failed",
      detail,
    });
    return { kind: "refused", error };
  }
}
