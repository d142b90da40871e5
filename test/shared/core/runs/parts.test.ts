import { describe, expect, it } from "vitest";
import type { SweepSummary } from "../../../../shared/core/renewal/summary.js";
import { exhaustedRun } from "../../../../shared/core/runs/exhausted.js";
import {
  derivedParent,
  derivedState,
  partStatus,
  partView,
} from "../../../../shared/core/runs/parts.js";
import type { Run, RunState } from "../../../../shared/core/runs/run.js";

const AT = new Date("2026-03-01T12:00:00.000Z");
const later = (ms: number) => new Date(AT.getTime() + ms);

function run(overrides: Partial<Run> = {}): Run {
  return {
    runId: "0b5c7d1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e",
    state: "queued",
    dryRun: false,
    requestedAt: AT,
    requestedBy: "timer",
    attempts: 0,
    account: "contoso",
    ...overrides,
  };
}

function summary(overrides: Partial<SweepSummary> = {}): SweepSummary {
  return {
    dryRun: false,
    startedAt: AT.toISOString(),
    durationMs: 5,
    ledger: "table",
    results: [],
    rejected: [],
    counts: {
      due: 0,
      "renewal-scheduled": 0,
      "would-renew": 0,
      skipped: 0,
      failed: 0,
      stuck: 0,
      blocked: 0,
      "not-attempted": 0,
      deferred: 0,
      waiting: 0,
      disabled: 0,
    },
    failed: true,
    problems: [],
    ...overrides,
  };
}

const of = (...states: RunState[]) => states.map((state) => run({ state }));

describe("derivedState: the parent's state from its parts'", () => {
  it("is queued until a part starts, running while any part is unfinished", () => {
    expect(derivedState(of("queued", "queued"))).toBe("queued");
    expect(derivedState(of("queued", "running"))).toBe("running");
    expect(derivedState(of("succeeded", "queued"))).toBe("running");
    expect(derivedState(of("failed", "running"))).toBe("running");
  });

  it("succeeded only when every part succeeded; else failed", () => {
    expect(derivedState(of("succeeded", "succeeded"))).toBe("succeeded");
    expect(derivedState(of("succeeded", "failed"))).toBe("failed");
    // A part the store no longer holds counts as failed.
    expect(derivedState([run({ state: "succeeded" }), undefined])).toBe("failed");
  });
});

describe("partStatus: why a part failed, in one word", () => {
  it("names the state of a part that did not fail", () => {
    for (const state of ["queued", "running", "succeeded"] as const) {
      expect(partStatus(run({ state }))).toBe(state);
    }
    expect(partStatus(undefined)).toBe("missing");
  });

  it("poisoned, credentials-refused, dead, over-quota, else failed", () => {
    const running = run({ state: "running", attempts: 5, problem: "boom", startedAt: AT });
    expect(partStatus(exhaustedRun(running, "failed", later(1)))).toBe("poisoned");
    const refused = summary({
      listError: "Identity provider refused a token for x: AADSTS7000215 (invalid client secret)",
    });
    expect(partStatus(run({ state: "failed", summary: refused }))).toBe("credentials-refused");
    expect(partStatus(run({ state: "failed", summary: refused, deadSince: AT }))).toBe("dead");
    const unauthorized = summary({
      listError:
        "list certificates due for renewal failed: the service answered 401 (the service refused certsched's credentials)",
    });
    expect(partStatus(run({ state: "failed", summary: unauthorized }))).toBe("credentials-refused");
    const tokenRefused = summary({
      results: [
        {
          certificateName: "www",
          id: 1,
          target: "app-service",
          expiryDate: AT.toISOString(),
          daysLeft: 5,
          outcome: "failed",
          reason: "SweepError",
          detail: "Identity provider refused a token",
          error: "TOKEN_REFUSED",
        },
      ],
    });
    expect(partStatus(run({ state: "failed", summary: tokenRefused }))).toBe("credentials-refused");
    const deferred = summary({ counts: { ...summary().counts, deferred: 2, due: 2 } });
    expect(partStatus(run({ state: "failed", summary: deferred }))).toBe("over-quota");
    const listRefused = summary({
      listError: "request not sent: CERTSCHED_SERVICE_QUOTA 1/7d: 1 used by reads and tests",
    });
    expect(partStatus(run({ state: "failed", summary: listRefused }))).toBe("over-quota");
    const down = summary({ listError: "list certificates due for renewal failed: answered 503" });
    expect(partStatus(run({ state: "failed", summary: down }))).toBe("failed");
  });
});

describe("derivedParent and partView", () => {
  it("takes the earliest start, the latest finish once all finished, and sums attempts", () => {
    const parent = run({ account: undefined, parts: [] });
    const parts = [
      run({ state: "succeeded", startedAt: later(10), finishedAt: later(50), attempts: 1 }),
      run({ state: "failed", startedAt: later(5), finishedAt: later(90), attempts: 2 }),
    ];
    expect(derivedParent(parent, parts)).toMatchObject({
      state: "failed",
      startedAt: later(5),
      finishedAt: later(90),
      attempts: 3,
    });
    const unfinished = derivedParent(parent, [parts[0], run({ state: "running" })]);
    expect(unfinished.state).toBe("running");
    expect(unfinished.finishedAt).toBeUndefined();
  });

  it("shows a part's state, status, attempts, counts and problem; a missing one says so", () => {
    const part = { account: "contoso", runId: "0b5c7d1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e" };
    const done = run({ state: "failed", attempts: 1, summary: summary({ problems: ["x"] }) });
    expect(partView(part, done)).toMatchObject({
      account: "contoso",
      state: "failed",
      status: "failed",
      attempts: 1,
      failed: true,
      problems: ["x"],
    });
    expect(partView(part, undefined)).toMatchObject({ state: "failed", status: "missing" });
    expect(partView(part, undefined).problem).toContain(part.runId);
  });
});
