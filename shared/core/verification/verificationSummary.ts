import type { Trigger } from "../history/events.js";
import { JSON_RAW_CONTROL } from "../renewal/summary.js";
import { type InventoryVerification, needsPerson } from "./inventoryResult.js";

/** Which verification wrote the line: the timer's (or an HTTP run's) whole inventory, or a sweep's. */
export type VerificationScope = "inventory" | "after-sweep";

/** The line's prefix; infra/alerts/verification-failed.kql filters on it. */
export const VERIFICATION_SUMMARY_PREFIX = "certsched verification summary ";

/**
 * The single structured line of a verification run, like the sweep's: counts per status, whether
 * the run failed, and the certificates that need a person (named, so the alert can say which).
 */
export function verificationSummaryLine(
  verification: InventoryVerification,
  run: {
    readonly trigger: Trigger;
    readonly scope: VerificationScope;
    readonly durationMs: number;
    /** The account verified; named only when accounts are declared. */
    readonly account?: string | undefined;
  },
): string {
  const failing = verification.results.filter(needsPerson).map((r) => ({
    ...(r.certificateName === undefined ? {} : { name: r.certificateName }),
    domain: r.domain,
    status: r.status,
    ...(r.daysLeft === undefined ? {} : { daysLeft: r.daysLeft }),
    ...(r.critical ? { critical: true } : {}),
    ...(r.pastGrace ? { pastGrace: true } : {}),
  }));
  const body = JSON.stringify({
    ...(run.account === undefined ? {} : { account: run.account }),
    trigger: run.trigger,
    scope: run.scope,
    failed: verification.failed,
    counts: verification.counts,
    checked: verification.results.length,
    durationMs: Math.round(run.durationMs),
    failing,
  });
  // As the sweep's summary line: JSON's own \uXXXX for what the log escaper would rewrite.
  return `${VERIFICATION_SUMMARY_PREFIX}${body.replace(
    JSON_RAW_CONTROL,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  )}`;
}
