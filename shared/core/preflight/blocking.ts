import { DAY_MS } from "../../lib/time.js";
import type { FailReason, PreflightResult } from "./preflight.js";
import { failReasons } from "./preflight.js";

/**
 * Which preflight results stop a renewal from being requested. Only reasons a person
 * must fix: sending the renewal anyway would spend a request of a small budget on a certain
 * refusal. A reason that may clear on its own (delegation still propagating, an app that did not
 * answer once, credentials) never blocks: the request is sent and the service decides.
 */
export const BLOCKING_REASONS: readonly FailReason[] = [
  "caa-forbids",
  "dns-zone-missing",
  "hostname-not-bound",
  "app-missing",
];

/** A preflight older than this no longer blocks: the person may have fixed it since. */
export const PREFLIGHT_FRESH_MS = DAY_MS;

/**
 * The reason the last preflight blocks this certificate's renewal at `now`, or undefined: it
 * passed, it is older than PREFLIGHT_FRESH_MS (exactly a day old still blocks), or it failed only
 * for reasons that do not block. The first blocking reason in check order is named.
 */
export function blockingReason(
  result: Pick<PreflightResult, "checks" | "at" | "status"> | undefined,
  now: Date,
): FailReason | undefined {
  if (result?.status !== "will-fail") return undefined;
  if (now.getTime() - result.at.getTime() > PREFLIGHT_FRESH_MS) return undefined;
  return failReasons(result).find((reason) => BLOCKING_REASONS.includes(reason));
}

/** The word the sweep reports for a blocked certificate: `blocked (preflight: caa-forbids)`. */
export function blockedWord(reason: FailReason): string {
  return `blocked (preflight: ${reason})`;
}
