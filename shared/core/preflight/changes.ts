import { daysLeft } from "../certificate/dates.js";
import { PREFLIGHT_ADVICE } from "./advice.js";
import {
  type FailReason,
  failReasons,
  type PreflightCheckName,
  type PreflightResult,
  type PreflightStatus,
} from "./preflight.js";

/**
 * What a preflight run tells people: a certificate that now will fail (or no longer
 * will) is a webhook message naming it, the check and what to do; a will-fail certificate with
 * fewer than ALERT_DAYS left is an alert line the alert rule (infra/alerts/preflight-will-fail.kql)
 * fires on.
 */

/** Fewer days left than this with a will-fail preflight: the alert fires. */
export const ALERT_DAYS = 25;

export interface PreflightChange {
  readonly account: string;
  readonly certificateName: string;
  readonly rootDomain: string | null;
  /** `will-fail`: now fails (before: ready, unknown or never checked); `ready`: back from will-fail. */
  readonly kind: "will-fail" | "ready";
  readonly from: PreflightStatus | undefined;
  /** For `will-fail`: the failed checks, their reasons and what to do. */
  readonly failures: readonly {
    readonly check: PreflightCheckName;
    readonly reason: FailReason;
    readonly detail: string;
    readonly advice: string;
  }[];
  /** Whole days until the certificate expires, when known. */
  readonly daysLeft?: number | undefined;
}

/** The change from the stored status `before` to `result`, or undefined when none to tell. */
export function changeOf(
  before: PreflightStatus | undefined,
  result: PreflightResult,
  expiry: Date | undefined,
): PreflightChange | undefined {
  const into = result.status === "will-fail" && before !== "will-fail";
  const back = result.status === "ready" && before === "will-fail";
  if (!into && !back) return undefined;
  return {
    account: result.account,
    certificateName: result.certificateName,
    rootDomain: result.rootDomain,
    kind: into ? "will-fail" : "ready",
    from: before,
    failures: result.checks.flatMap((c) =>
      c.status === "fail" && c.reason
        ? [
            {
              check: c.check,
              reason: c.reason,
              detail: c.detail,
              advice: PREFLIGHT_ADVICE[c.reason],
            },
          ]
        : [],
    ),
    ...(expiry ? { daysLeft: daysLeft(expiry, result.at) } : {}),
  };
}

/** The alert line's fixed start: infra/alerts/preflight-will-fail.kql matches on it. */
export const PREFLIGHT_ALERT_PREFIX = "certsched preflight alert: ";

/**
 * The alert line for a will-fail result with fewer than ALERT_DAYS left (undefined otherwise, or
 * when the expiry is unknown). Names are JSON-quoted: they come from the service.
 */
export function alertLine(result: PreflightResult, expiry: Date | undefined): string | undefined {
  if (result.status !== "will-fail" || expiry === undefined) return undefined;
  const days = daysLeft(expiry, result.at);
  if (days >= ALERT_DAYS) return undefined;
  return `${PREFLIGHT_ALERT_PREFIX}certificate ${JSON.stringify(result.certificateName)} of account ${JSON.stringify(result.account)} will fail to renew (${failReasons(result).join(", ")}) with ${days} days left`;
}
