import { CertschedError } from "../../lib/errors.js";
import type { QuotaUsage } from "../ports/budget.js";
import type { RequestPurpose } from "./requestContext.js";

/** The shared budget's arithmetic: what fits, what is left, and the words for it. */

/** Why a request was not sent: the budget is spent, or what is left is kept for renewals. */
export class QuotaExhaustedError extends CertschedError {
  readonly purpose: RequestPurpose;
  readonly usage: QuotaUsage;

  constructor(purpose: RequestPurpose, usage: QuotaUsage, need: number) {
    super("QUOTA_EXHAUSTED", quotaMessage(purpose, usage, need), { retriable: true });
    this.name = "QuotaExhaustedError";
    this.purpose = purpose;
    this.usage = usage;
  }
}

/** Whether a renewal's request fits: `used` (its own included) at most the limit. */
export function renewalFits(used: number, limit: number): boolean {
  return used <= limit;
}

/**
 * Whether a read's request fits: `used` (its own included) at most 80 % of the limit (whole
 * numbers, so exactly 80 % fits and one more does not), and `need` still left for due renewals.
 */
export function readFits(used: number, need: number, limit: number): boolean {
  return used * 5 <= limit * 4 && used + need <= limit;
}

/** How many are left of the limit (never below 0). */
export const leftOf = (usage: QuotaUsage): number => Math.max(0, usage.quota.requests - usage.used);

/** "10/7d: 6 used by reads and tests, 4 by other runs' renewals, 0 by this run, 0 left". */
export function usageText(usage: QuotaUsage): string {
  return `CERTSCHED_SERVICE_QUOTA ${usage.quota.text}: ${usage.reads} used by reads and tests, ${usage.others} by other runs and processes (their lists and renewals), ${usage.thisRun} by this run, ${leftOf(usage)} left`;
}

function quotaMessage(purpose: RequestPurpose, usage: QuotaUsage, need: number): string {
  const spent = usage.used >= usage.quota.requests;
  const why =
    purpose === "renewal" || spent
      ? "the budget is spent"
      : need === Number.POSITIVE_INFINITY
        ? "what due renewals need is not known (no due list could be read), so reads wait for one"
        : need > 0 && usage.used + 1 + need > usage.quota.requests
          ? `the ${need} request(s) due renewals need in the window are kept for them`
          : "reads stop at 80 % of it";
  return `request not sent: ${usageText(usage)}; ${why}`;
}
