import { AsyncLocalStorage } from "node:async_hooks";
import type { Trigger } from "../history/events.js";

/**
 * What started the work a request belongs to, carried through the async calls under it. One
 * HttpClient serves a timer sweep, a queued run and HTTP calls in the same function app process
 * at once, so the trigger cannot be a property of the client or the runtime: each piece of work
 * that knows its trigger (a sweep, a renewal by name, a create) runs inside `withTrigger`.
 */
const current = new AsyncLocalStorage<Trigger>();

/** Runs `work` with `trigger` as the trigger of every request it sends. */
export function withTrigger<T>(trigger: Trigger, work: () => Promise<T>): Promise<T> {
  return current.run(trigger, work);
}

/** The trigger of the work running now, or undefined outside any `withTrigger`. */
export function currentTrigger(): Trigger | undefined {
  return current.getStore();
}
