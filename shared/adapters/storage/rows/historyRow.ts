import { z } from "zod";
import {
  type CertificateEvent,
  EVENT_KINDS,
  type EventKind,
  type RunRecord,
  TRIGGERS,
  type Trigger,
} from "../../../core/history/events.js";
import type { ServiceRequest } from "../../../core/ports/history.js";
import { redactRecordStrings } from "../../../lib/redact/redactStrings.js";
import { parseOrThrow } from "../../../lib/zodProblems.js";
import { MAX_KEY_CHARS, nameKey } from "../nameKey.js";
import { instant, jsonText } from "./rowText.js";
import { eventServedFrom, eventServedText } from "./servedJson.js";

/**
 * History rows in Table storage, and the mappers both ways. Keys: a certificate's events share a
 * partition (made from its name: eventPartition), runs share the partition "run". The row key starts with the time inverted, so a
 * partition reads newest first and "older than" is one range (retention).
 */

export const RUN_PARTITION = "run";
/** Requests sent to the service (the request budget) share this partition. */
export const REQUEST_PARTITION = "request";
/** Events' partitions start with this; it sorts after "run" never matters (queries name it). */
export const EVENT_PARTITION_PREFIX = "cert|";
/** Longest text kept in one property (a property holds at most 64 KiB). */
export const MAX_TEXT = 1000;
/** Problems kept per run row. */
export const MAX_PROBLEMS = 20;

const LATEST = 9_999_999_999_999;

/** Row-key prefix for an instant: later instants sort first. */
export function invertedTime(at: Date): string {
  return String(LATEST - at.getTime()).padStart(13, "0");
}

/**
 * A certificate's event partition: the prefix, then a key made from its name that fits with it
 * (shared/adapters/storage/nameKey.ts). Names that fitted keep the partition they had; a lone surrogate,
 * which encodeURIComponent refused (every append with it failed), now has one of its own.
 */
export function eventPartition(certificateName: string): string {
  return `${EVENT_PARTITION_PREFIX}${nameKey(certificateName, MAX_KEY_CHARS - EVENT_PARTITION_PREFIX.length)}`;
}

export interface EventRow {
  partitionKey: string;
  rowKey: string;
  kind: "event";
  at: string;
  certificateName: string;
  certificateId?: number;
  event: EventKind;
  trigger: Trigger;
  runId: string;
  by?: string;
  reason?: string;
  detail?: string;
  status?: number;
  error?: string;
  expiryDate?: string;
  /** JSON object: the served facts before and after a renewal (rows/servedJson.ts). */
  served?: string;
}

export interface RunRow {
  partitionKey: string;
  rowKey: string;
  kind: "run";
  runId: string;
  trigger: Trigger;
  startedAt: string;
  finishedAt: string;
  dryRun: boolean;
  forced?: boolean;
  failed: boolean;
  ledger: string;
  /** JSON object: outcome to count. */
  counts: string;
  /** JSON array of lines. */
  problems: string;
  /** JSON object: {"incomplete": [step, ...]}, the steps not done in time; absent: all done. */
  bookkeeping?: string;
}

/** One request sent to the service, as stored (for the request budget). */
export interface RequestRow {
  partitionKey: string;
  rowKey: string;
  kind: "request";
  at: string;
  operation: string;
  trigger: Trigger;
}

const cut = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text);

/** `unique` keeps two events of one certificate in one millisecond apart. */
export function toEventRow(e: CertificateEvent, unique: string): EventRow {
  return {
    partitionKey: eventPartition(e.certificateName),
    rowKey: `${invertedTime(e.at)}-${unique}`,
    kind: "event",
    at: e.at.toISOString(),
    certificateName: e.certificateName,
    ...(e.id !== undefined ? { certificateId: e.id } : {}),
    event: e.event,
    trigger: e.trigger,
    runId: e.runId,
    ...(e.by ? { by: cut(e.by) } : {}),
    ...(e.reason ? { reason: cut(e.reason) } : {}),
    ...(e.detail ? { detail: cut(e.detail) } : {}),
    ...(e.status !== undefined ? { status: e.status } : {}),
    ...(e.error ? { error: e.error } : {}),
    ...(e.expiryDate ? { expiryDate: e.expiryDate.toISOString() } : {}),
    ...servedOf(e),
  };
}

function servedOf(e: CertificateEvent): { served?: string } {
  const served = eventServedText(e);
  return served === undefined ? {} : { served };
}

export function toRunRow(r: RunRecord): RunRow {
  return {
    partitionKey: RUN_PARTITION,
    rowKey: `${invertedTime(r.startedAt)}-${r.runId}`,
    kind: "run",
    runId: r.runId,
    trigger: r.trigger,
    startedAt: r.startedAt.toISOString(),
    finishedAt: r.finishedAt.toISOString(),
    dryRun: r.dryRun,
    ...(r.forced ? { forced: true } : {}),
    failed: r.failed,
    ledger: r.ledger,
    counts: JSON.stringify(r.counts),
    problems: JSON.stringify(r.problems.slice(0, MAX_PROBLEMS).map(cut)),
    ...(r.bookkeeping ? { bookkeeping: JSON.stringify(r.bookkeeping) } : {}),
  };
}

/** `unique` keeps two requests of one millisecond apart. */
export function toRequestRow(r: ServiceRequest, unique: string): RequestRow {
  return {
    partitionKey: REQUEST_PARTITION,
    rowKey: `${invertedTime(r.at)}-${unique}`,
    kind: "request",
    at: r.at.toISOString(),
    operation: r.operation,
    trigger: r.trigger,
  };
}

const trigger = z.enum(TRIGGERS as [Trigger, ...Trigger[]], {
  error: `must be one of ${TRIGGERS.join(", ")}`,
});

const eventSchema = z.object({
  at: instant,
  certificateName: z.string().min(1, { message: "must not be empty" }),
  certificateId: z.number().int().optional(),
  event: z.enum(EVENT_KINDS as [EventKind, ...EventKind[]], {
    error: `must be one of ${EVENT_KINDS.join(", ")}`,
  }),
  trigger,
  runId: z.string().min(1),
  by: z.string().optional(),
  reason: z.string().optional(),
  detail: z.string().optional(),
  status: z.number().int().optional(),
  error: z.string().optional(),
  expiryDate: instant.optional(),
});

const runSchema = z.object({
  runId: z.string().min(1),
  trigger,
  startedAt: instant,
  finishedAt: instant,
  dryRun: z.boolean(),
  forced: z.boolean().optional(),
  failed: z.boolean(),
  ledger: z.string(),
  counts: jsonText(z.record(z.string(), z.number())),
  problems: jsonText(z.array(z.string())),
  bookkeeping: jsonText(z.object({ incomplete: z.array(z.string()) })).optional(),
});

const requestSchema = z.object({
  kind: z.literal("request", { error: 'must be "request"' }),
  at: instant,
  operation: z.string().min(1, { message: "must not be empty" }),
  trigger,
});

/** A stored request row; throws a ValidationError naming each field that is not right. */
export function fromRequestRow(stored: Record<string, unknown>, table: string): ServiceRequest {
  const row = redactRecordStrings(stored);
  const { kind: _kind, ...request } = parseOrThrow(
    requestSchema,
    row,
    `history request row ${String(row.rowKey)} in table ${table}`,
  );
  return request;
}

/** A stored event row; throws a ValidationError naming each field that is not right. */
export function fromEventRow(stored: Record<string, unknown>, table: string): CertificateEvent {
  // Read back, a row is redacted before anything else sees it: another process may have
  // written it, with tokens this one never held (they are found by their shape).
  const row = redactRecordStrings(stored);
  const r = parseOrThrow(eventSchema, row, `history row ${String(row.rowKey)} in table ${table}`);
  const { certificateId, ...rest } = r;
  // A `served` property (a receipt) that is not right reads as absent; the event stands.
  const served = eventServedFrom(row.served);
  return { ...rest, ...(certificateId !== undefined ? { id: certificateId } : {}), ...served };
}

/** A stored run row; throws a ValidationError naming each field that is not right. */
export function fromRunRow(stored: Record<string, unknown>, table: string): RunRecord {
  const row = redactRecordStrings(stored);
  return parseOrThrow(runSchema, row, `history run row ${String(row.rowKey)} in table ${table}`);
}
