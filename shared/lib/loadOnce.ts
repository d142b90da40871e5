/**
 * Something built on first use: `load` runs on the first `get()`, and every `get()` after it
 * gets the same value; concurrent first calls share one load. A load that fails is not kept:
 * the next `get()` tries again, as every call would reach the thing anyway.
 *
 * This is certsched's one way of building something on first use (an adapter whose module is
 * large, an SDK, a client): a port's "on first use" form is a class whose methods are written
 * out, each `(await this.#x.get()).method(...)`, so reading or jumping to a method lands next to
 * the module it loads (app/lazyAdapters.ts).
 */
export class LoadOnce<T> {
  readonly #load: () => Promise<T>;
  #loading: Promise<T> | undefined;

  constructor(load: () => Promise<T>) {
    this.#load = load;
  }

  /** The value, loaded by the first call. */
  get(): Promise<T> {
    this.#loading ??= this.#load().catch((error: unknown) => {
      this.#loading = undefined;
      throw error;
    });
    return this.#loading;
  }

  /** The value when a load has begun (it may still fail), else undefined: nothing is loaded. */
  begun(): Promise<T> | undefined {
    return this.#loading;
  }
}
