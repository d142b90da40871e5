import { describe, expect, it } from "vitest";
import { lazyMethods } from "../../../shared/lib/lazyMethods.js";

interface Store {
  readonly prefix: string;
  get(key: string): Promise<string>;
  put(key: string, value: string): Promise<void>;
}

/** A store whose loads are counted; `failFirst` makes the first load reject. */
function loader(failFirst = false) {
  const state = { loads: 0, puts: [] as string[] };
  const load = async (): Promise<Store> => {
    state.loads += 1;
    if (failFirst && state.loads === 1) throw new Error("module not loadable yet");
    return {
      prefix: "v:",
      // `this`: the method is called on the loaded object, as a direct call would.
      async get(this: Store, key) {
        return `${this.prefix}${key}`;
      },
      async put(key, value) {
        state.puts.push(`${key}=${value}`);
      },
    };
  };
  return { state, load };
}

describe("lazyMethods", () => {
  it("loads nothing until a method is called, then once for every call", async () => {
    const { state, load } = loader();
    const store = lazyMethods(load, ["get", "put"]);
    expect(state.loads).toBe(0);
    const [a, b] = await Promise.all([store.get("a"), store.get("b")]);
    await store.put("k", "1");
    expect([a, b]).toEqual(["v:a", "v:b"]);
    expect(state.puts).toEqual(["k=1"]);
    expect(state.loads).toBe(1);
  });

  it("gives only the methods named", () => {
    const store = lazyMethods(loader().load, ["get"]);
    expect(Object.keys(store)).toEqual(["get"]);
  });

  it("a failed load is not kept: the call rejects with its cause, the next call loads again", async () => {
    const { state, load } = loader(true);
    const store = lazyMethods(load, ["get"]);
    await expect(store.get("a")).rejects.toThrow("module not loadable yet");
    await expect(store.get("a")).resolves.toBe("v:a");
    expect(state.loads).toBe(2);
  });
});
