import { describe, expect, it } from "vitest";
import { mapWithConcurrency } from "../../../shared/lib/pool.js";

/** Work that finishes after `ms`, counting how many run at once. */
function tracked() {
  let running = 0;
  let most = 0;
  return {
    most: () => most,
    work: async (ms: number, index: number) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, ms));
      running -= 1;
      return `${index}:${ms}`;
    },
  };
}

describe("mapWithConcurrency", () => {
  it("keeps the items' order whatever order the work finishes in", async () => {
    const { work } = tracked();
    expect(await mapWithConcurrency([30, 1, 15, 5], 4, work)).toEqual([
      "0:30",
      "1:1",
      "2:15",
      "3:5",
    ]);
  });

  it("never runs more than `limit` at once, and does run that many", async () => {
    const t = tracked();
    await mapWithConcurrency([5, 5, 5, 5, 5, 5, 5], 3, t.work);
    expect(t.most()).toBe(3);
  });

  it("runs one at a time when the limit is below 1", async () => {
    const t = tracked();
    expect(await mapWithConcurrency([2, 2, 2], 0, t.work)).toEqual(["0:2", "1:2", "2:2"]);
    expect(t.most()).toBe(1);
  });

  it("answers [] for no items without calling the work", async () => {
    let calls = 0;
    expect(
      await mapWithConcurrency([], 4, async () => {
        calls += 1;
      }),
    ).toEqual([]);
    expect(calls).toBe(0);
  });
});
