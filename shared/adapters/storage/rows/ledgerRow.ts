import { z } from "zod";
import {
  LEDGER_OUTCOMES,
  type LedgerOutcome,
  type LedgerRecord,
} from "../../../core/ports/ledger.js";
import { redactRecordStrings } from "../../../lib/redact/redactStrings.js";
import { parseOrThrow } from "../../../lib/zodProblems.js";
import { instant } from "./rowText.js";

/**
 * The ledger's Table storage row, and the mappers both ways. A row read back is input like any
 * other (another version of certsched, a person in Storage Explorer, a half-applied migration
 * may have written it), so it is validated with the same care as a request body: a row that is
 * not a record this version understands is reported by its fields, never guessed at.
 */

export const PARTITION = "certificate";
/** Longest detail stored; a row's property holds at most 64 KiB. */
export const MAX_DETAIL = 1000;

export interface Row {
  partitionKey: string;
  rowKey: string;
  certificateName: string;
  expiryAtRequest: string;
  firstRequestedAt?: string;
  lastRequestedAt?: string;
  claimedAt?: string;
  outcome: LedgerOutcome;
  attempts: number;
  detail?: string;
  reason?: string;
  runId?: string;
}

export function toRow(r: LedgerRecord): Row {
  return {
    partitionKey: PARTITION,
    rowKey: String(r.id),
    certificateName: r.certificateName,
    expiryAtRequest: r.expiryAtRequest.toISOString(),
    ...(r.firstRequestedAt ? { firstRequestedAt: r.firstRequestedAt.toISOString() } : {}),
    ...(r.lastRequestedAt ? { lastRequestedAt: r.lastRequestedAt.toISOString() } : {}),
    ...(r.claimedAt ? { claimedAt: r.claimedAt.toISOString() } : {}),
    outcome: r.outcome,
    attempts: r.attempts,
    ...(r.detail ? { detail: r.detail.slice(0, MAX_DETAIL) } : {}),
    ...(r.reason ? { reason: r.reason } : {}),
    ...(r.runId ? { runId: r.runId } : {}),
  };
}

/**
 * Rows written before the ledger told "claimed" from "sent" said "requesting" for both. Such a
 * row may stand for a request that was sent, so it is read as the cautious one: sent, answer
 * unknown (the next sweeps wait out the grace before asking again).
 */
const outcome = z.preprocess(
  (value) => (value === "requesting" ? "answer-unknown" : value),
  z.enum(LEDGER_OUTCOMES as [LedgerOutcome, ...LedgerOutcome[]], {
    error: `must be one of ${LEDGER_OUTCOMES.join(", ")}`,
  }),
);

/** States in which a request was sent: they must say when. */
const SENT: ReadonlySet<LedgerOutcome> = new Set([
  "sent",
  "renewal-scheduled",
  "answer-unknown",
  "stuck",
]);

const rowSchema = z
  .object({
    rowKey: z.string().regex(/^[1-9]\d{0,15}$/, { message: "must be a certificate id" }),
    certificateName: z.string().min(1, { message: "must not be empty" }),
    expiryAtRequest: instant,
    firstRequestedAt: instant.optional(),
    lastRequestedAt: instant.optional(),
    claimedAt: instant.optional(),
    outcome,
    attempts: z.number().int().min(0, { message: "must be a whole number from 0" }),
    detail: z.string().optional(),
    reason: z.string().optional(),
    runId: z
      .string()
      .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, {
        message: "must be a run id (a lower-case UUID)",
      })
      .optional(),
  })
  .superRefine((row, ctx) => {
    if (row.outcome === "claimed" && !row.claimedAt) {
      ctx.addIssue({ code: "custom", path: ["claimedAt"], message: "is required when claimed" });
    }
    if (SENT.has(row.outcome)) {
      for (const key of ["firstRequestedAt", "lastRequestedAt"] as const) {
        if (!row[key]) {
          ctx.addIssue({
            code: "custom",
            path: [key],
            message: `is required when the outcome is ${row.outcome}`,
          });
        }
      }
    }
    // Zod runs this even when a field failed (its raw value is then here): compare dates only.
    const { firstRequestedAt: first, lastRequestedAt: last } = row as Record<string, unknown>;
    if (first instanceof Date && last instanceof Date && last.getTime() < first.getTime()) {
      ctx.addIssue({
        code: "custom",
        path: ["lastRequestedAt"],
        message: "must not be before firstRequestedAt",
      });
    }
  });

/** A stored row as a record; throws a ValidationError naming each field that is not right. */
export function fromRow(stored: Record<string, unknown>, table: string): LedgerRecord {
  // Read back, a row is redacted before anything else sees it: another process may have
  // written it, with tokens this one never held (they are found by their shape).
  const row = redactRecordStrings(stored);
  const r = parseOrThrow(rowSchema, row, `ledger row ${String(row.rowKey)} in table ${table}`);
  return {
    id: Number(r.rowKey),
    certificateName: r.certificateName,
    expiryAtRequest: r.expiryAtRequest,
    firstRequestedAt: r.firstRequestedAt,
    lastRequestedAt: r.lastRequestedAt,
    outcome: r.outcome,
    attempts: r.attempts,
    detail: r.detail,
    ...(r.claimedAt ? { claimedAt: r.claimedAt } : {}),
    ...(r.reason ? { reason: r.reason } : {}),
    ...(r.runId ? { runId: r.runId } : {}),
  };
}
