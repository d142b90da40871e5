import { describe, expect, it } from "vitest";
import { LoadOnce } from "../../../shared/lib/loadOnce.js";

/** A load whose calls are counted; `failFirst` makes the first one reject. */
function counted(failFirst = false) {
  const state = { loads: 0 };
  const load = async (): Promise<{ readonly n: number }> => {
    state.loads += 1;
    if (failFirst && state.loads === 1) throw new Error("module not loadable yet");
    return { n: state.loads };
  };
  return { state, load };
}

describe("LoadOnce", () => {
  it("loads nothing until asked, then once for every call, concurrent first calls included", async () => {
    const { state, load } = counted();
    const once = new LoadOnce(load);
    expect(state.loads).toBe(0);
    expect(once.begun()).toBeUndefined();
    const [a, b] = await Promise.all([once.get(), once.get()]);
    expect(a).toBe(b);
    expect(await once.get()).toBe(a);
    expect(state.loads).toBe(1);
    expect(await once.begun()).toBe(a);
  });

  it("a failed load is not kept: the call rejects with its cause, the next call loads again", async () => {
    const { state, load } = counted(true);
    const once = new LoadOnce(load);
    await expect(once.get()).rejects.toThrow("module not loadable yet");
    expect(once.begun()).toBeUndefined();
    await expect(once.get()).resolves.toEqual({ n: 2 });
    expect(state.loads).toBe(2);
  });
});
