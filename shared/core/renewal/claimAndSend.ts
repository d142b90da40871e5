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
  /**
   * Sends the renewal; resolves with the service's confirmation. It must call `sending` as the
   * request's bytes are handed to the socket and hold the request's last byte until the promise
   * resolves, and end the request short if it rejects (ServiceClient's `sending` option does).
   * `sending` writes "sent" once, however often it is called.
   */
  readonly send: (sending: () => Promise<void>) => Promise<string>;
  /** A ledger call threw (LEDGER_UNAVAILABLE). */
  readonly ledgerFailed: (error: unknown) => void;
  /** The final write did not land: the row still says "sent". */
  readonly unresolved: () => void;
  /** The failure's words, redacted (renewOne's describe). */
  readonly describe: (error: unknown) => { detail: string };
  /** The run (the sweep's runId) making the claim, kept on the row; none for a person's. */
  readonly runId?: string | undefined;
}

/**
 * How far a renewal got. Only "answered" and "unanswered" (and "refused" when the "sent" write
 * had landed) may have sent a complete request.
 */
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

/** The "sent" write did not win: the request is ended before its last byte. */
class NotMarked extends Error {
  constructor(readonly kind: "ledger-failed" | "conflict") {
    super(`the ledger's "sent" write ${kind === "conflict" ? "lost" : "failed"}: not sent`);
  }
}

/**
 * Claim (conditional write), send, and mark the row "sent" (a second conditional write) as the
 * request's bytes are handed to the socket, its last byte held until that write has landed;
 * then record the answer: the steps every renewal takes, the sweep's and a person's alike. A
 * crash before the "sent" write landed leaves "claimed" and a request the service never saw
 * whole (renewed at once after the lease); one after it leaves "sent" (answer unknown). A lost
 * or failed "sent" write ends the request before its last byte. Never throws.
 */
export async function claimAndSend(input: ClaimAndSendInput): Promise<ClaimAndSendResult> {
  const ledgerCall = guardLedger(input.ledgerFailed);

  // 1. Claim: a concurrent writer that read the same version loses this write.
  const claim = claimRecord(input);
  const claimed = await ledgerCall(() => input.ledger.write(claim, input.entry?.etag));
  if (claimed === LEDGER_FAILED) return { kind: "ledger-failed", step: "claim" };
  if (claimed === "conflict") return { kind: "conflict", step: "claim" };

  // 2. Sent, as the request leaves: only a won write lets its last byte go.
  const marker = sentMarker(input, claim, claimed.etag, ledgerCall);

  // 3. Send, then record the answer over the row as it stands.
  const row: Row = { claim, etag: claimed.etag };
  let message: string;
  try {
    message = await input.send(marker.sending);
  } catch (error) {
    return recordFailure(input, error, row, marker, ledgerCall);
  }
  return recordAnswer(input, message, row, marker, ledgerCall);
}

/** A ledger call that reports a throw (LEDGER_UNAVAILABLE) and returns LEDGER_FAILED instead. */
type LedgerCall = <T>(call: () => Promise<T>) => Promise<T | typeof LEDGER_FAILED>;

function guardLedger(ledgerFailed: (error: unknown) => void): LedgerCall {
  return async <T>(call: () => Promise<T>): Promise<T | typeof LEDGER_FAILED> => {
    try {
      return await call();
    } catch (error) {
      ledgerFailed(error);
      return LEDGER_FAILED;
    }
  };
}

/** The "claimed" row: the episode's request times and attempts carried over, none sent yet. */
function claimRecord(input: ClaimAndSendInput): LedgerRecord {
  const { cert, previous } = input;
  return {
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
}

/** The claim as written, and the etag that write returned. */
interface Row {
  readonly claim: LedgerRecord;
  readonly etag: string;
}

/** A row as last written, with its etag: the version the next write replaces. */
interface Marked {
  readonly record: LedgerRecord;
  readonly etag: string;
}

/** The "sent" write, started by the sender's `sending` call and awaited by the answer. */
interface SentMarker {
  /** Given to `send`: writes "sent" once, however often it is called. */
  readonly sending: () => Promise<void>;
  /** That write, once started (in flight or settled); undefined while `sending` was not called. */
  readonly marking: () => Promise<void> | undefined;
  /** The "sent" row and its etag, once that write has landed. */
  readonly marked: () => Marked | undefined;
}

function sentMarker(
  input: ClaimAndSendInput,
  claim: LedgerRecord,
  claimedEtag: string,
  ledgerCall: LedgerCall,
): SentMarker {
  const { previous, ledger } = input;
  let marked: Marked | undefined;
  let marking: Promise<void> | undefined;
  const sending = (): Promise<void> => {
    marking ??= (async () => {
      const sentAt = input.now();
      const sent: LedgerRecord = {
        ...claim,
        outcome: "sent",
        firstRequestedAt: previous?.firstRequestedAt ?? sentAt,
        lastRequestedAt: sentAt,
        attempts: claim.attempts + 1,
      };
      const written = await ledgerCall(() => ledger.write(sent, claimedEtag));
      if (written === LEDGER_FAILED) {
        // Nothing was sent; the row says "claimed" (renewed after the lease) or, if the write
        // landed unseen, "sent" (answer unknown). Either way the caller must say so.
        input.unresolved();
        throw new NotMarked("ledger-failed");
      }
      if (written === "conflict") throw new NotMarked("conflict");
      marked = { record: sent, etag: written.etag };
    })();
    return marking;
  };
  return { sending, marking: () => marking, marked: () => marked };
}

/** Records the final outcome over the row as it stands; a write that does not land: unresolved. */
async function record(
  input: ClaimAndSendInput,
  ledgerCall: LedgerCall,
  final: LedgerRecord,
  etag: string,
): Promise<void> {
  const written = await ledgerCall(() => input.ledger.write(final, etag));
  if (written === LEDGER_FAILED || written === "conflict") input.unresolved();
}

/** `send` rejected: says how far the request got and records that. */
async function recordFailure(
  input: ClaimAndSendInput,
  error: unknown,
  row: Row,
  marker: SentMarker,
  ledgerCall: LedgerCall,
): Promise<ClaimAndSendResult> {
  const { previous } = input;
  // A "sent" write still in flight (the attempt was cut while it waited) decides first.
  await marker.marking()?.catch(() => {});
  if (error instanceof NotMarked) return { kind: error.kind, step: "sent" };
  const { detail } = input.describe(error);
  const marked = marker.marked();
  if (!marked) {
    // Failed before its bytes left (no token, no budget, no connection): nothing was sent,
    // the episode's request times stay as they were.
    await record(input, ledgerCall, { ...row.claim, outcome: "failed", detail }, row.etag);
    return { kind: "refused", error };
  }
  // No answer in time: the service may have scheduled it all the same. "answer-unknown"
  // keeps the request time, so the next sweeps do not order a second renewal at once.
  if (isCertschedError(error) && error.code === "UPSTREAM_TIMEOUT") {
    const unknown: LedgerRecord = { ...marked.record, outcome: "answer-unknown", detail };
    await record(input, ledgerCall, unknown, marked.etag);
    return { kind: "unanswered", error };
  }
  // A refused request ordered nothing: the episode's request times stay as they were.
  await record(
    input,
    ledgerCall,
    {
      ...marked.record,
      firstRequestedAt: previous?.firstRequestedAt,
      lastRequestedAt: previous?.lastRequestedAt,
      outcome: "failed",
      detail,
    },
    marked.etag,
  );
  return { kind: "refused", error };
}

/** `send` resolved with the service's confirmation: records it over the row. */
async function recordAnswer(
  input: ClaimAndSendInput,
  message: string,
  row: Row,
  marker: SentMarker,
  ledgerCall: LedgerCall,
): Promise<ClaimAndSendResult> {
  const { previous } = input;
  // A sender that never called `sending` (none in certsched's): the answer is recorded all the
  // same, with the request times it would have had.
  const at = input.now();
  const done = marker.marked() ?? {
    record: {
      ...row.claim,
      firstRequestedAt: previous?.firstRequestedAt ?? at,
      lastRequestedAt: at,
      attempts: row.claim.attempts + 1,
    },
    etag: row.etag,
  };
  await record(
    input,
    ledgerCall,
    { ...done.record, outcome: input.stuck ? "stuck" : "renewal-scheduled", detail: message },
    done.etag,
  );
  return { kind: "answered", message };
}
