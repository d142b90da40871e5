import { describe, expect, it, vi } from "vitest";
import { cachedValue } from "../../../shared/lib/cachedValue.js";

/** A read the test finishes by hand, in any order. */
function manualReads() {
  const pending: Array<{ resolve: (v: string) => void; reject: (e: Error) => void }> = [];
  const read = vi.fn(
    () =>
      new Promise<string>((resolve, reject) => {
        pending.push({ resolve, reject });
      }),
  );
  return { read, pending };
}

const clock = { ttlMs: 1_000, now: () => new Date(0) };

describe("cachedValue", () => {
  it("lets a fresh read join only another fresh read", async () => {
    const { read, pending } = manualReads();
    const get = cachedValue(read, clock);

    const normal = get(false);
    const fresh1 = get(true);
    const fresh2 = get(true);
    const joined = get(false);
    expect(read).toHaveBeenCalledTimes(2);

    pending[1]?.resolve("new");
    pending[0]?.resolve("old");
    expect(await Promise.all([normal, fresh1, fresh2, joined])).toEqual([
      "old",
      "new",
      "new",
      "new",
    ]);
  });

  it("keeps a rotated value when an older, slower read finishes last", async () => {
    const { read, pending } = manualReads();
    const get = cachedValue(read, clock);

    const stale = get(false);
    const fresh = get(true);
    pending[1]?.resolve("rotated");
    await fresh;
    pending[0]?.resolve("stale");
    await stale;

    expect(await get(false)).toBe("rotated");
    expect(read).toHaveBeenCalledTimes(2);
  });

  it("does not cache a failure", async () => {
    const { read, pending } = manualReads();
    const get = cachedValue(read, clock);

    const failed = get(false);
    pending[0]?.reject(new Error("vault down"));
    await expect(failed).rejects.toThrow("vault down");

    const retried = get(false);
    pending[1]?.resolve("value");
    expect(await retried).toBe("value");
  });
});
