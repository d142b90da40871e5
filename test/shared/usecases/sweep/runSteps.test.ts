import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { noRequestLog, type RequestLog } from "../../../../shared/core/ports/requestLog.js";
import { countWithin } from "../../../../shared/usecases/sweep/plan.js";
import { runSteps, type Step, urgent, within } from "../../../../shared/usecases/sweep/runSteps.js";

const step = (name: Step["name"], run: Step["run"]): Step => ({ name, run });

describe("within", () => {
  it("is the work's value when it comes in time, the late value when not", async () => {
    expect(await within(Promise.resolve(1), 1_000, "late")).toBe(1);
    expect(await within(sleep(5_000, 1), 20, "late")).toBe("late");
    // Nothing left: late at once; Infinity: the work, however long.
    expect(await within(Promise.resolve(1), 0, "late")).toBe("late");
    expect(await within(sleep(30, 2), Infinity, "late")).toBe(2);
  });
});

describe("runSteps", () => {
  it("runs the steps in order and names none when all are over in time", async () => {
    const order: string[] = [];
    const steps = (["events", "inventory", "verification", "telemetry"] as const).map((name) =>
      step(name, async () => {
        order.push(name);
        return true;
      }),
    );
    expect(await runSteps(steps, performance.now() + 5_000)).toEqual([]);
    expect(order).toEqual(["events", "inventory", "verification", "telemetry"]);
  });

  it("stops waiting for a step at the end, names it and every later one, and starts none of them", async () => {
    const started: string[] = [];
    let signalOfSlow: AbortSignal | undefined;
    const steps = [
      step("events", async () => {
        started.push("events");
        return true;
      }),
      step("inventory", async (signal) => {
        started.push("inventory");
        signalOfSlow = signal;
        await sleep(10_000, undefined, { ref: false });
        return true;
      }),
      step("verification", async () => {
        started.push("verification");
        return true;
      }),
    ];
    const before = performance.now();
    const incomplete = await runSteps(steps, before + 200);
    // Generous: the slow step takes 10 s, the whole call well under it.
    expect(performance.now() - before).toBeLessThan(5_000);
    expect(incomplete).toEqual(["inventory", "verification"]);
    expect(started).toEqual(["events", "inventory"]);
    // The step's own signal is aborted at the end too (its timer may fire just after).
    await sleep(100);
    expect(signalOfSlow?.aborted).toBe(true);
  });

  it("names a step cut short (false) or that threw, and goes on with the next", async () => {
    const incomplete = await runSteps(
      [
        step("events", async () => {
          throw new Error("boom");
        }),
        step("inventory", async () => false),
        step("telemetry", async () => true),
      ],
      performance.now() + 5_000,
    );
    expect(incomplete).toEqual(["events", "inventory"]);
  });
});

describe("urgent", () => {
  it("is what a person must act on: failed, answer-unknown, stuck, blocked, not-attempted, deferred", () => {
    const kinds = ["failed", "answer-unknown", "stuck", "blocked", "not-attempted", "deferred"];
    const others = ["renewal-scheduled", "skipped", "verified", "landed", "manual-request"];
    const event = (e: string) => ({ event: e }) as Parameters<typeof urgent>[0];
    expect(kinds.every((k) => urgent(event(k)))).toBe(true);
    expect(others.some((k) => urgent(event(k)))).toBe(false);
  });
});

describe("countWithin", () => {
  it("passes a count that comes in time, and rejects one that does not", async () => {
    const slow: RequestLog = {
      ...noRequestLog,
      kind: "table",
      since: async () => {
        await sleep(5_000, undefined, { ref: false });
        return 7;
      },
    };
    const fast: RequestLog = { ...noRequestLog, kind: "table", since: async () => 7 };
    expect(await countWithin(fast, () => 1_000).since(new Date())).toBe(7);
    await expect(countWithin(slow, () => 30).since(new Date())).rejects.toThrow(
      /no answer within the 30 ms the run had left for it/,
    );
    expect(countWithin(slow, () => 30).kind).toBe("table");
  });
});
