import { describe, expect, it } from "vitest";
import { exhaustedAt, exhaustedRun } from "../../../../shared/core/runs/exhausted.js";
import {
  ATTEMPT_TIMEOUT_MS,
  MAX_DEQUEUE_COUNT,
  POISON_QUEUE,
  type Run,
} from "../../../../shared/core/runs/run.js";

const NOW = new Date("2026-03-01T12:00:00.000Z");
const ago = (ms: number) => new Date(NOW.getTime() - ms);

function run(overrides: Partial<Run> = {}): Run {
  return {
    runId: "0b5c7d1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e",
    state: "running",
    dryRun: false,
    requestedAt: ago(ATTEMPT_TIMEOUT_MS * 10),
    requestedBy: "function-key",
    startedAt: ago(ATTEMPT_TIMEOUT_MS),
    attempts: MAX_DEQUEUE_COUNT,
    ...overrides,
  };
}

describe("exhaustedAt: only a run that can never finish", () => {
  it("is failed when the last delivery's attempt recorded an error", () => {
    expect(exhaustedAt(run({ problem: "upstream 503", startedAt: ago(1) }), NOW)).toBe("failed");
  });

  it("timed out once the function timeout has passed since the last attempt started", () => {
    expect(exhaustedAt(run({ startedAt: ago(ATTEMPT_TIMEOUT_MS) }), NOW)).toBe("timed-out");
    expect(exhaustedAt(run({ startedAt: ago(ATTEMPT_TIMEOUT_MS - 1) }), NOW)).toBeUndefined();
  });

  it("timed out when no attempt ever wrote a start", () => {
    expect(exhaustedAt(run({ startedAt: undefined }), NOW)).toBe("timed-out");
  });

  it("is not confirmed while deliveries remain, or once the run is not running", () => {
    expect(
      exhaustedAt(run({ attempts: MAX_DEQUEUE_COUNT - 1, problem: "x" }), NOW),
    ).toBeUndefined();
    for (const state of ["queued", "succeeded", "failed"] as const) {
      expect(exhaustedAt(run({ state, problem: "x" }), NOW)).toBeUndefined();
    }
  });
});

describe("exhaustedRun", () => {
  it("fails the run at the time given, naming the poison queue and the last attempt's error", () => {
    const failed = exhaustedRun(run({ problem: "upstream 503" }), "failed", NOW);

    expect(failed.state).toBe("failed");
    expect(failed.finishedAt).toEqual(NOW);
    expect(failed.problem).toContain(POISON_QUEUE);
    expect(failed.problem).toContain(`${MAX_DEQUEUE_COUNT} attempt(s)`);
    expect(failed.problem).toContain("the last attempt failed: upstream 503");
  });

  it("says the last attempt ran out of time when it timed out", () => {
    const failed = exhaustedRun(run(), "timed-out", NOW);

    expect(failed.problem).toContain("did not finish within the function timeout (10 min)");
  });
});
