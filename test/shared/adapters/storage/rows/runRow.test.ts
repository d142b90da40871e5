import { describe, expect, it } from "vitest";
import { memoryRunStore } from "../../../../../shared/adapters/storage/memory/memoryRunStore.js";
import {
  CHUNK_CHARS,
  fromRunRow,
  MAX_CHUNKS,
  toRunRow,
} from "../../../../../shared/adapters/storage/rows/runRow.js";
import {
  type CertificateResult,
  countOutcomes,
  type SweepSummary,
} from "../../../../../shared/core/renewal/summary.js";
import type { Run } from "../../../../../shared/core/runs/run.js";
import { ValidationError } from "../../../../../shared/lib/errors.js";

const RUN_ID = "6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5";

function result(i: number, detail = "Certificate is scheduled for renewal."): CertificateResult {
  return {
    certificateName: `site-${String(i).padStart(6, "0")}-contoso-com`,
    id: i,
    target: "Cloud App Service",
    expiryDate: "2026-03-09T03:00:00.000Z",
    daysLeft: 8,
    outcome: "renewal-scheduled",
    reason: "NewRenewal",
    detail,
  };
}

function summary(results: CertificateResult[]): SweepSummary {
  return {
    dryRun: false,
    startedAt: "2026-03-01T03:00:00.000Z",
    durationMs: 1234,
    ledger: "table",
    results,
    rejected: [],
    counts: countOutcomes(results, 0),
    failed: false,
    problems: [],
  };
}

function run(results: CertificateResult[]): Run {
  return {
    runId: RUN_ID,
    state: "succeeded",
    dryRun: false,
    requestedAt: new Date("2026-03-01T02:59:59.000Z"),
    requestedBy: "function-key",
    startedAt: new Date("2026-03-01T03:00:00.000Z"),
    finishedAt: new Date("2026-03-01T03:00:01.234Z"),
    attempts: 1,
    summary: summary(results),
  };
}

describe("run rows", () => {
  it("round-trip a finished run, its summary split over properties each under 64 KiB", () => {
    const results = Array.from({ length: 400 }, (_, i) => result(i));
    const row = toRunRow(run(results));

    expect(row.summaryChunks).toBeGreaterThan(1);
    for (let i = 0; i < row.summaryChunks; i++) {
      expect(row[`summary${i}`]?.length).toBeLessThanOrEqual(CHUNK_CHARS);
    }
    expect(row.resultsOmitted).toBeUndefined();
    expect(fromRunRow({ ...row }, "t")).toEqual(run(results));
  });

  it("keep a forced run's force and a blocked result; an unforced run has no force", () => {
    const blocked: CertificateResult = {
      ...result(1),
      outcome: "blocked",
      reason: "PreflightBlocked",
      blockedBy: "caa-forbids",
      detail: "blocked (preflight: caa-forbids): add a CAA record",
    };
    const forced: Run = {
      ...run([blocked, { ...result(2), forcedPast: "app-missing" }]),
      force: true,
    };
    const row = toRunRow(forced);
    expect(row.force).toBe(true);
    expect(fromRunRow({ ...row }, "t")).toEqual(forced);
    expect(toRunRow(run([]))).not.toHaveProperty("force");
    expect(fromRunRow({ ...toRunRow(run([])) }, "t")).not.toHaveProperty("force");
  });

  it("cut the results of a summary too large for one entity, and say how many", () => {
    // About 1.3 MB of JSON: more than MAX_CHUNKS properties hold.
    const long = "x".repeat(1000);
    const results = Array.from({ length: 1300 }, (_, i) => result(i, long));
    const row = toRunRow(run(results));

    expect(row.summaryChunks).toBeLessThanOrEqual(MAX_CHUNKS);
    const back = fromRunRow({ ...row }, "t");
    const kept = back.summary?.results.length ?? 0;
    expect(kept).toBeGreaterThan(0);
    expect(back.resultsOmitted).toBe(1300 - kept);
    // The counts are the whole run's, results or not.
    expect(back.summary?.counts.due).toBe(1300);
  });

  it("name what is wrong with a row that is not a run", () => {
    const row = { ...toRunRow(run([result(1)])), state: "paused", attempts: -1 };

    expect(() => fromRunRow(row, "certschedruns")).toThrow(ValidationError);
    expect(() => fromRunRow(row, "certschedruns")).toThrow(
      /run row 6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5 in table certschedruns: state: must be one of queued, running, succeeded, failed; attempts/,
    );
  });

  it("refuse a summary that is not JSON of a sweep summary", () => {
    const row = { ...toRunRow(run([result(1)])), summary0: '{"dryRun":' };

    expect(() => fromRunRow(row, "t")).toThrow(/its summary/);
  });

  it("keep a problem, redacted and cut to 1000 characters", () => {
    const row = toRunRow({
      ...run([]),
      summary: undefined,
      state: "failed",
      problem: "p".repeat(5000),
    });
    expect(row.problem).toHaveLength(1000);
    expect(row.summaryChunks).toBe(0);
  });
});

describe("the in-process run store", () => {
  it("holds the idempotency key until the window has passed, exactly", async () => {
    const store = memoryRunStore();
    const at = new Date("2026-03-01T00:00:00.000Z");
    const entry = { runId: RUN_ID, dryRun: false, at };
    const window = 1000;

    expect(await store.claimKey("k", entry, at, window)).toEqual({ claimed: true });
    const later = (ms: number) => new Date(at.getTime() + ms);
    expect(await store.claimKey("k", { ...entry, runId: "other" }, later(999), window)).toEqual({
      claimed: false,
      entry,
    });
    expect(await store.claimKey("k", { ...entry, runId: "other" }, later(1000), window)).toEqual({
      claimed: true,
    });
  });
});

describe("run rows of a fanned-out run", () => {
  const partId = (i: number) => `6f1c2d3e-4a5b-4c6d-8e7f-${String(i).padStart(12, "0")}`;

  it("keeps a part's account and parent, and a parent's parts in order, over many properties", () => {
    const part: Run = {
      ...run([]),
      runId: partId(1),
      account: "contoso-eu",
      parentRunId: RUN_ID,
      attemptId: "a1",
      deadSince: new Date("2026-02-25T03:00:00.000Z"),
    };
    expect(fromRunRow({ ...toRunRow(part) }, "t")).toMatchObject({
      account: "contoso-eu",
      parentRunId: RUN_ID,
      attemptId: "a1",
      deadSince: new Date("2026-02-25T03:00:00.000Z"),
    });
    // 1,000 accounts of the longest name: more than one property holds.
    const parts = Array.from({ length: 1000 }, (_, i) => ({
      account: `${"a".repeat(35)}-${String(i).padStart(4, "0")}`,
      runId: partId(i),
    }));
    const parent: Run = { ...run([]), summary: undefined, state: "queued", parts };
    const row = toRunRow(parent);
    expect(row.partsChunks).toBeGreaterThan(1);
    for (let i = 0; i < (row.partsChunks ?? 0); i++) {
      expect(row[`parts${i}`]?.length).toBeLessThanOrEqual(CHUNK_CHARS);
    }
    expect(fromRunRow({ ...row }, "t").parts).toEqual(parts);
  });

  it("refuses a stored part that is not account:runId, naming it", () => {
    const row = { ...toRunRow({ ...run([]), parts: [{ account: "a", runId: partId(1) }] }) };
    (row as Record<string, unknown>).parts0 = `a:${partId(1)},Not An Account:${partId(2)}`;
    expect(() => fromRunRow(row, "t")).toThrow(ValidationError);
    expect(() => fromRunRow(row, "t")).toThrow(/its part 2/);
  });
});
