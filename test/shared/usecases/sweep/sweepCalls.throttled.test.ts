import { describe, expect, it } from "vitest";
import { runPool } from "../../../../shared/core/concurrency/adaptivePool.js";
import { UpstreamError } from "../../../../shared/lib/errors.js";
import {
  isThrottled,
  retryThrottled,
  THROTTLE_MAX_WAIT_MS,
  throttleWaitMs,
} from "../../../../shared/usecases/sweep/sweepCalls.js";

const throttled = () =>
  new UpstreamError("UPSTREAM_FAILED", "publicRenew", "renew failed: the service answered 429", {
    status: 429,
    retriable: true,
  });

/** Answers from a script: an Error is thrown, anything else returned; counts the calls. */
function scripted(answers: (string | Error)[]) {
  let calls = 0;
  return {
    calls: () => calls,
    send: async () => {
      const answer = answers[Math.min(calls, answers.length - 1)];
      calls += 1;
      if (answer instanceof Error) throw answer;
      return answer as string;
    },
  };
}

describe("isThrottled and throttleWaitMs", () => {
  it("is a 429 from the service, nothing else", () => {
    expect(isThrottled(throttled())).toBe(true);
    expect(
      isThrottled(new UpstreamError("UPSTREAM_FAILED", "publicRenew", "503", { status: 503 })),
    ).toBe(false);
    expect(isThrottled(new Error("429"))).toBe(false);
  });

  it("doubles from the first wait, half of it random, up to the most", () => {
    expect(throttleWaitMs(1, 1_000, () => 0)).toBe(500);
    expect(throttleWaitMs(1, 1_000, () => 1)).toBe(1_000);
    expect(throttleWaitMs(3, 1_000, () => 1)).toBe(4_000);
    expect(throttleWaitMs(30, 1_000, () => 1)).toBe(THROTTLE_MAX_WAIT_MS);
  });
});

describe("retryThrottled", () => {
  it("asks again after a 429 until the service accepts", async () => {
    const s = scripted([throttled(), throttled(), "scheduled"]);
    let retries = 0;
    await expect(
      retryThrottled(s.send, { firstWaitMs: 5, onRetry: () => (retries += 1) }),
    ).resolves.toBe("scheduled");
    expect(s.calls()).toBe(3);
    expect(retries).toBe(2);
  });

  it("gives the 429 back after its rounds", async () => {
    const s = scripted([throttled()]);
    await expect(retryThrottled(s.send, { firstWaitMs: 1, rounds: 2 })).rejects.toThrow(/429/);
    expect(s.calls()).toBe(3);
  });

  it("never asks again after any other failure", async () => {
    const refused = new UpstreamError("UPSTREAM_FAILED", "publicRenew", "answered 400", {
      status: 400,
    });
    const s = scripted([refused, "scheduled"]);
    await expect(retryThrottled(s.send, { firstWaitMs: 1 })).rejects.toBe(refused);
    expect(s.calls()).toBe(1);
  });

  it("stops waiting when the deadline passes: the last 429 is the answer", async () => {
    const deadline = new AbortController();
    const s = scripted([throttled()]);
    const started = performance.now();
    const call = retryThrottled(s.send, { firstWaitMs: 60_000, deadline: deadline.signal });
    setTimeout(() => deadline.abort(), 20);
    await expect(call).rejects.toThrow(/429/);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(s.calls()).toBe(1);
    // Already past the deadline: not asked again at all.
    const late = scripted([throttled(), "scheduled"]);
    await expect(retryThrottled(late.send, { deadline: deadline.signal })).rejects.toThrow(/429/);
    expect(late.calls()).toBe(1);
  });

  it("gives its pool slot back while it waits, so another renewal goes out meanwhile", async () => {
    const events: string[] = [];
    const first = scripted([throttled(), "a scheduled"]);
    await runPool(
      ["a", "b"],
      () => 1,
      async (name, _i, slot) => {
        events.push(`${name} sends`);
        if (name === "b") {
          events.push("b scheduled");
          return;
        }
        events.push(await retryThrottled(first.send, { slot, firstWaitMs: 20 }));
      },
    );
    expect(events).toEqual(["a sends", "b sends", "b scheduled", "a scheduled"]);
  });
});
