import { createHash } from "node:crypto";
import { retryAfterMs } from "../../lib/http/retryPolicy.js";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../../lib/time.js";
import type { RenewalInfo } from "./renewalInfo.js";

/**
 * What the CA's window means for one certificate now (RFC 9773, section 4.2): a time chosen
 * uniformly inside the window; renew when it has come, or when it comes before the next time
 * certsched looks (the verify schedule cannot wake at an exact time).
 */
export type AriDecision =
  | {
      readonly renew: true;
      /** `window-ended`: past its end, renew late rather than never. */
      readonly reason: "chosen-time-reached" | "before-next-check" | "window-ended";
      readonly chosenAt: Date;
    }
  | { readonly renew: false; readonly reason: "not-yet"; readonly chosenAt: Date };

export interface DecideOptions {
  readonly now: Date;
  /**
   * Where in the window, from 0 (its start) to below 1 (its end). Use {@link stableFraction}
   * so every run picks the same time for the same window without storing it.
   */
  readonly fraction: number;
  /** When certsched will next look (the next verification run), if known. */
  readonly nextCheckAt?: Date | undefined;
}

/** The time chosen inside [start, end): start + fraction x length, to the millisecond. */
export function chosenTime(info: Pick<RenewalInfo, "start" | "end">, fraction: number): Date {
  const f = Math.min(Math.max(fraction, 0), 1 - Number.EPSILON);
  const span = info.end.getTime() - info.start.getTime();
  return new Date(info.start.getTime() + Math.floor(f * span));
}

/** Whether and why to renew now, given the CA's window. */
export function decideAri(
  info: Pick<RenewalInfo, "start" | "end">,
  options: DecideOptions,
): AriDecision {
  const chosenAt = chosenTime(info, options.fraction);
  const now = options.now.getTime();
  if (now >= info.end.getTime()) return { renew: true, reason: "window-ended", chosenAt };
  if (now >= chosenAt.getTime()) return { renew: true, reason: "chosen-time-reached", chosenAt };
  if (options.nextCheckAt && options.nextCheckAt.getTime() > chosenAt.getTime()) {
    return { renew: true, reason: "before-next-check", chosenAt };
  }
  return { renew: false, reason: "not-yet", chosenAt };
}

/**
 * A uniform fraction in [0, 1) fixed by the CertID and the window: the same certificate and
 * window always give the same time (no state to keep between runs), a moved window a new one,
 * and many certificates spread over the window instead of all renewing at its start.
 */
export function stableFraction(certId: string, info: Pick<RenewalInfo, "start" | "end">): number {
  const digest = createHash("sha256")
    .update(`${certId}|${info.start.toISOString()}|${info.end.toISOString()}`)
    .digest();
  // 48 bits: exact in a double, finer than a millisecond over any window a CA sends.
  return digest.readUIntBE(0, 6) / 2 ** 48;
}

/** RFC 9773, section 4.3: treat an interval under a minute as a minute, over a day as a day. */
export const MIN_ASK_INTERVAL_MS = MINUTE_MS;
export const MAX_ASK_INTERVAL_MS = DAY_MS;
/** After an answer without a usable Retry-After: Let's Encrypt's own usual interval. */
export const DEFAULT_ASK_INTERVAL_MS = 6 * HOUR_MS;
/** After a failure without a usable Retry-After: soon, but not on every run. */
export const DEFAULT_RETRY_INTERVAL_MS = HOUR_MS;

/**
 * When to ask the CA again about this certificate: its Retry-After (seconds or an HTTP date),
 * clamped to [1 min, 1 day]; without one, 6 h after an answer, 1 h after a failure.
 */
export function nextAskAt(
  now: Date,
  retryAfter: string | undefined,
  after: "answer" | "failure",
): Date {
  const hinted = retryAfterMs(retryAfter, now.getTime());
  const fallback = after === "answer" ? DEFAULT_ASK_INTERVAL_MS : DEFAULT_RETRY_INTERVAL_MS;
  const wait = Math.min(Math.max(hinted ?? fallback, MIN_ASK_INTERVAL_MS), MAX_ASK_INTERVAL_MS);
  return new Date(now.getTime() + wait);
}
