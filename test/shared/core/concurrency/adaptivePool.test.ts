import { describe, expect, it } from "vitest";
import { runPool } from "../../../../shared/core/concurrency/adaptivePool.js";

const tick = (ms = 2) => new Promise((resolve) => setTimeout(resolve, ms));

/** Work that finishes after `ms`, counting how many run at once (slot held). */
function tracked() {
  let running = 0;
  let most = 0;
  const seen: number[] = [];
  return {
    most: () => most,
    seen,
    enter() {
      running += 1;
      most = Math.max(most, running);
      seen.push(running);
    },
    leave() {
      running -= 1;
    },
  };
}

describe("runPool", () => {
  it("keeps the items' order whatever order the work finishes in", async () => {
    const out = await runPool(
      [30, 1, 15, 5],
      () => 4,
      async (ms, i) => {
        await tick(ms);
        return `${i}:${ms}`;
      },
    );
    expect(out).toEqual(["0:30", "1:1", "2:15", "3:5"]);
  });

  it("resolves at once with no items", async () => {
    expect(
      await runPool(
        [],
        () => 4,
        async () => 1,
      ),
    ).toEqual([]);
  });

  it("never runs more than the width, and runs that many", async () => {
    const t = tracked();
    await runPool(
      Array.from({ length: 9 }, () => 5),
      () => 3,
      async (ms) => {
        t.enter();
        await tick(ms);
        t.leave();
      },
    );
    expect(t.most()).toBe(3);
  });

  it("reads the width as slots free: a wider width starts more, a narrower one waits", async () => {
    let width = 2;
    const t = tracked();
    const done = runPool(
      Array.from({ length: 30 }, (_, i) => i),
      () => width,
      async (i) => {
        t.enter();
        await tick(3);
        t.leave();
        if (i === 4) width = 6;
        if (i === 16) width = 1;
      },
    );
    await done;
    expect(t.most()).toBe(6);
    // After the narrowing, once the items in flight drained, one at a time.
    expect(t.seen.slice(-5)).toEqual([1, 1, 1, 1, 1]);
  });

  it("treats a width below 1 (or not a number) as 1", async () => {
    for (const w of [0, -3, Number.NaN]) {
      const t = tracked();
      await runPool(
        [1, 1, 1],
        () => w,
        async () => {
          t.enter();
          await tick(1);
          t.leave();
        },
      );
      expect(t.most()).toBe(1);
    }
  });

  it("lets a waiting item give its slot back and take it again before items not started", async () => {
    const order: string[] = [];
    let active = 0;
    let most = 0;
    await runPool(
      ["a", "b", "c"],
      () => 1,
      async (name, _i, slot) => {
        active += 1;
        most = Math.max(most, active);
        order.push(`${name} start`);
        if (name === "a") {
          active -= 1;
          slot.release();
          slot.release(); // once only
          await tick(5);
          await slot.reacquire();
          active += 1;
          most = Math.max(most, active);
          order.push("a again");
          await slot.reacquire(); // already held: at once
        }
        await tick(name === "b" ? 20 : 1);
        active -= 1;
        order.push(`${name} end`);
      },
    );
    expect(most).toBe(1);
    // b ran while a waited; a, waiting for its slot back, went before c, which was not started.
    expect(order).toEqual(["a start", "b start", "b end", "a again", "a end", "c start", "c end"]);
  });

  it("rejects when work throws (its contract is never to)", async () => {
    await expect(
      runPool(
        [1],
        () => 1,
        async () => {
          throw new Error("boom");
        },
      ),
    ).rejects.toThrow("boom");
  });
});
