import type { Trigger } from "../history/events.js";

/** Who asked: the history's `by` ("function-key", "entra:<name> (<oid>)", "cli"). */
export interface Requester {
  readonly trigger: Exclude<Trigger, "timer">;
  readonly by: string;
  /** Why, for the history's request and acceptance (ARI: the CA's window, its explanation). */
  readonly because?: string | undefined;
}

/** The acceptance's detail: why it was asked (ARI), then the service's words. */
export function acceptedDetail(requester: Requester, detail: string | undefined) {
  return requester.because ? { detail: `${requester.because}; the service: ${detail ?? ""}` } : {};
}

/** A caller of the HTTP API as the history names it (edge/auth/callerOf.ts's Caller fits). */
export type NamedCaller =
  | { readonly kind: "function-key" }
  | { readonly kind: "entra"; readonly id: string; readonly name: string };

/** Who a caller of the HTTP API is, as the history records it. */
export function requesterOf(caller: NamedCaller): Requester {
  return {
    trigger: "http",
    by: caller.kind === "entra" ? `entra:${caller.name} (${caller.id})` : "function-key",
  };
}

/** The reason constant a manual renewal's ledger row and history events carry. */
export const MANUAL_REQUEST = "ManualRequest";
