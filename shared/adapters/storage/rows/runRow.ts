import { z } from "zod";
import { OUTCOMES, type Outcome, type SweepSummary } from "../../../core/renewal/summary.js";
import { RUN_STATES, type Run, type RunPart, type RunState } from "../../../core/runs/run.js";
import { runIdSchema } from "../../../core/runs/runMessage.js";
import { redact } from "../../../lib/redact/redact.js";
import { parseOrThrow } from "../../../lib/zodProblems.js";
import { instant } from "./rowText.js";

/**
 * Run rows in Table storage and the mappers both ways. Runs share the partition "run" with the
 * runId as row key (one point read per poll). The summary is JSON split over `summary0..` (a
 * string property holds at most 64 KiB, 32 K UTF-16 characters; an entity 1 MiB), and cut to
 * its first results when even that is too small; `resultsOmitted` says how many were left out.
 */

export const RUN_PARTITION = "run";
/** Characters per summary property: 30 000 UTF-16 units, under the 64 KiB property limit. */
export const CHUNK_CHARS = 30_000;
/** Summary properties per row: 12 x 60 KB stays well under the 1 MiB entity limit. */
export const MAX_CHUNKS = 12;
/** Longest problem text kept. */
const MAX_PROBLEM = 1000;

export interface RunRow {
  partitionKey: string;
  rowKey: string;
  state: RunState;
  dryRun: boolean;
  force?: boolean;
  requestedAt: string;
  requestedBy: string;
  startedAt?: string;
  finishedAt?: string;
  attempts: number;
  problem?: string;
  /** How many summary properties follow (summary0 .. summary{n-1}); 0: no summary. */
  summaryChunks: number;
  resultsOmitted?: number;
  resentAt?: string;
  undelivered?: boolean;
  account?: string;
  parentRunId?: string;
  /** A fanned-out run's parts: "account:runId" joined by ",", split over parts0.. as summary is. */
  partsChunks?: number;
  deadSince?: string;
  attemptId?: string;
  [chunk: `summary${number}`]: string;
  [part: `parts${number}`]: string;
}

/** The summary's JSON, its results cut until it fits in MAX_CHUNKS properties. */
export function fitSummary(summary: SweepSummary): { json: string; omitted: number } {
  const limit = CHUNK_CHARS * MAX_CHUNKS;
  let kept = summary.results.length;
  // Redacted as a whole: a result's detail quotes the service, which may echo a token.
  let json = redact(JSON.stringify(summary));
  while (json.length > limit && kept > 0) {
    kept = Math.floor(kept / 2);
    json = redact(JSON.stringify({ ...summary, results: summary.results.slice(0, kept) }));
  }
  return { json, omitted: summary.results.length - kept };
}

const cut = (text: string) =>
  text.length > MAX_PROBLEM ? `${text.slice(0, MAX_PROBLEM - 1)}…` : text;

export function toRunRow(run: Run): RunRow {
  const row: RunRow = {
    partitionKey: RUN_PARTITION,
    rowKey: run.runId,
    state: run.state,
    dryRun: run.dryRun,
    ...(run.force ? { force: true } : {}),
    requestedAt: run.requestedAt.toISOString(),
    requestedBy: cut(run.requestedBy),
    ...(run.startedAt ? { startedAt: run.startedAt.toISOString() } : {}),
    ...(run.finishedAt ? { finishedAt: run.finishedAt.toISOString() } : {}),
    attempts: run.attempts,
    ...(run.problem ? { problem: cut(redact(run.problem)) } : {}),
    summaryChunks: 0,
    ...(run.resentAt ? { resentAt: run.resentAt.toISOString() } : {}),
    ...(run.undelivered ? { undelivered: true } : {}),
    ...(run.account ? { account: run.account } : {}),
    ...(run.parentRunId ? { parentRunId: run.parentRunId } : {}),
    ...(run.deadSince ? { deadSince: run.deadSince.toISOString() } : {}),
    ...(run.attemptId ? { attemptId: run.attemptId } : {}),
  };
  if (run.parts) {
    const text = run.parts.map((p) => `${p.account}:${p.runId}`).join(",");
    const chunks = Math.ceil(text.length / CHUNK_CHARS);
    for (let i = 0; i < chunks; i++) {
      row[`parts${i}`] = text.slice(i * CHUNK_CHARS, (i + 1) * CHUNK_CHARS);
    }
    row.partsChunks = chunks;
  }
  if (run.summary) {
    const { json, omitted } = fitSummary(run.summary);
    const chunks = Math.ceil(json.length / CHUNK_CHARS);
    for (let i = 0; i < chunks; i++) {
      row[`summary${i}`] = json.slice(i * CHUNK_CHARS, (i + 1) * CHUNK_CHARS);
    }
    row.summaryChunks = chunks;
    if (omitted > 0 || run.resultsOmitted) {
      row.resultsOmitted = omitted + (run.resultsOmitted ?? 0);
    }
  }
  return row;
}

const count = z.number().int().nonnegative();
const accountName = z.string().regex(/^[a-z0-9-]{1,40}$/, {
  message: "must be an account name (1-40 of a-z, 0-9, -)",
});

/** The parts of a summary certsched reads back; the rest is kept as stored. */
const summarySchema = z.looseObject({
  dryRun: z.boolean(),
  startedAt: z.string(),
  durationMs: z.number(),
  ledger: z.enum(["table", "memory", "none", "unavailable"]),
  listError: z.string().optional(),
  results: z.array(
    z.looseObject({
      certificateName: z.string(),
      outcome: z.enum(OUTCOMES as [Outcome, ...Outcome[]]),
      detail: z.string(),
    }),
  ),
  rejected: z.array(z.looseObject({})),
  counts: z.record(z.string(), count),
  failed: z.boolean(),
  problems: z.array(z.string()),
});

const rowSchema = z.object({
  rowKey: runIdSchema,
  state: z.enum(RUN_STATES as [RunState, ...RunState[]], {
    error: `must be one of ${RUN_STATES.join(", ")}`,
  }),
  dryRun: z.boolean(),
  force: z.boolean().optional(),
  requestedAt: instant,
  requestedBy: z.string().min(1),
  startedAt: instant.optional(),
  finishedAt: instant.optional(),
  attempts: count,
  problem: z.string().optional(),
  summaryChunks: count.max(MAX_CHUNKS),
  resultsOmitted: count.optional(),
  resentAt: instant.optional(),
  undelivered: z.boolean().optional(),
  account: accountName.optional(),
  parentRunId: runIdSchema.optional(),
  partsChunks: count.max(MAX_CHUNKS).optional(),
  deadSince: instant.optional(),
  attemptId: z.string().max(64).optional(),
});

const partSchema = z.object({ account: accountName, runId: runIdSchema });

/** The parts of a fanned-out run, from parts0..; a part that is not "account:runId" is refused. */
function partsOf(row: Record<string, unknown>, chunks: number, what: string): RunPart[] {
  const text = Array.from({ length: chunks }, (_, i) => String(row[`parts${i}`] ?? "")).join("");
  return text
    .split(",")
    .filter((p) => p !== "")
    .map((p, i) => {
      const at = p.indexOf(":");
      return parseOrThrow(
        partSchema,
        { account: p.slice(0, at), runId: p.slice(at + 1) },
        `${what}, its part ${i + 1}`,
      );
    });
}

/** A stored run row; throws a ValidationError naming each field that is not right. */
export function fromRunRow(row: Record<string, unknown>, table: string): Run {
  const what = `run row ${String(row.rowKey)} in table ${table}`;
  const r = parseOrThrow(rowSchema, row, what);
  let summary: SweepSummary | undefined;
  if (r.summaryChunks > 0) {
    const parts: string[] = [];
    for (let i = 0; i < r.summaryChunks; i++) parts.push(String(row[`summary${i}`] ?? ""));
    let parsed: unknown;
    try {
      parsed = JSON.parse(parts.join(""));
    } catch {
      parsed = undefined;
    }
    // Checked, then kept as stored: the summary was ours when written.
    parseOrThrow(summarySchema, parsed, `${what}, its summary`);
    summary = parsed as SweepSummary;
  }
  return {
    runId: r.rowKey,
    state: r.state,
    dryRun: r.dryRun,
    ...(r.force ? { force: true } : {}),
    requestedAt: r.requestedAt,
    requestedBy: r.requestedBy,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    attempts: r.attempts,
    problem: r.problem,
    summary,
    ...(r.resultsOmitted ? { resultsOmitted: r.resultsOmitted } : {}),
    ...(r.resentAt ? { resentAt: r.resentAt } : {}),
    ...(r.undelivered ? { undelivered: true } : {}),
    ...(r.account ? { account: r.account } : {}),
    ...(r.parentRunId ? { parentRunId: r.parentRunId } : {}),
    ...(r.partsChunks ? { parts: partsOf(row, r.partsChunks, what) } : {}),
    ...(r.deadSince ? { deadSince: r.deadSince } : {}),
    ...(r.attemptId ? { attemptId: r.attemptId } : {}),
  };
}
