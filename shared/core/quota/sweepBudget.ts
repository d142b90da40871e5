import { ensureError } from "../../lib/errors.js";
import { RENEW } from "../../lib/http/retryPolicy.js";
import type { Logger } from "../../lib/log.js";
import { redact } from "../../lib/redact/redact.js";
import type { CertificateRecord } from "../certificate/records.js";
import type { QuotaUsage } from "../ports/budget.js";
import { REQUEST_WINDOW_MS, type RequestLog } from "../ports/requestLog.js";
import { deferredDetail, type QuotaView } from "../renewal/summary.js";
import { usageText } from "./budgetRules.js";
import { nearQuota, type ServiceQuota } from "./serviceQuota.js";

/** What a sweep needs of the request budget: the count, and the quota if set. */
export interface SweepBudget {
  readonly requests: RequestLog;
  readonly quota: ServiceQuota | undefined;
}

/** The sweep's log and clock. */
interface Context {
  readonly log: Logger;
  readonly now: () => Date;
}

/** The sweep's log and clock, and the run id its requests are reserved under. */
interface RunContext extends Context {
  readonly runId: string;
}

/**
 * Most urgent first: the earliest expiry (fewest days left), then the name, so a budget that
 * cannot cover every renewal goes to the certificates that would expire first.
 */
export function byUrgency(certificates: readonly CertificateRecord[]): CertificateRecord[] {
  return [...certificates].sort(
    (a, b) =>
      a.expiryDate.getTime() - b.expiryDate.getTime() ||
      (a.certificateName < b.certificateName ? -1 : a.certificateName > b.certificateName ? 1 : 0),
  );
}

/**
 * The request budget for this run's renewals (one request each), read once the list's own
 * requests are counted; undefined when no quota is set, or when the count cannot
 * be read (a warning: the 429 of a service that enforces its limit is still honoured).
 */
export async function quotaAtStart(
  budget: SweepBudget | undefined,
  options: RunContext,
): Promise<QuotaView | undefined> {
  const quota = budget?.quota;
  if (!budget || !quota) return undefined;
  const { requests } = budget;
  if (requests.kind === "none") {
    options.log.warn(
      `certsched: CERTSCHED_SERVICE_QUOTA is set (${quota.text}) but no storage keeps the request count (AzureWebJobsStorage or CERTSCHED_LEDGER_TABLE_URI): only this run's renewals are limited by it`,
    );
  }
  let used: number;
  try {
    // Shared: the window on the storage clock (the list's own reservation set it), every
    // process's requests in it. Else this host's clock over the counted requests.
    const shared = requests.shared ? await requests.usage(options.runId) : undefined;
    // Without storage: what this process sent (the list included), the only count there is.
    used =
      shared?.used ??
      (requests.kind === "none"
        ? requests.sent()
        : await requests.since(new Date(options.now().getTime() - quota.windowMs)));
  } catch (error) {
    options.log.warn(
      `certsched: the request count could not be read, so CERTSCHED_SERVICE_QUOTA (${quota.text}) is not applied this run: ${redact(ensureError(error).message)}`,
    );
    return undefined;
  }
  const view: QuotaView = {
    limit: quota.text,
    used,
    remaining: Math.max(0, quota.requests - used),
    warning: nearQuota(quota, used),
  };
  if (view.warning) {
    options.log.warn(
      `certsched: ${used} of the ${quota.requests} requests CERTSCHED_SERVICE_QUOTA (${quota.text}) allows are used: 80 % or more of the service's request budget`,
    );
  }
  return view;
}

/**
 * Most requests one renewal can send: the first attempt and RENEW's retries, all twice when a
 * refused token is renewed and the call sent again (ServiceClient's 401 path).
 */
export const MOST_REQUESTS_PER_RENEWAL = 2 * (RENEW.maxRetries + 1);

/** How a sweep spends what is left of the budget on its renewals. */
export interface RenewalGate {
  /**
   * One renewal at a time, most urgent first: the budget may run out (in parallel a less urgent
   * one could reach its send first and take a more urgent one's request).
   */
  readonly sequential: boolean;
  /** The detail of a "deferred" result when the next renewal may not be sent, else undefined. */
  deferred(): Promise<string | undefined>;
  /** The detail of a renewal the shared budget refused as it was sent (another process). */
  refused(usage: QuotaUsage): string;
  /** Why certificates were deferred, for the run's problem line; undefined when none was. */
  cause(): string | undefined;
}

/** The problem line's words when this run's own more urgent renewals took the budget. */
export const TAKEN_BY_MORE_URGENT =
  "the service's request budget (CERTSCHED_SERVICE_QUOTA) went to more urgent ones";

/**
 * The cause of a deferral in words, from who used the window: "went to more urgent ones" only
 * when this run alone used it, else the count by reads and tests, other runs and this one.
 */
export function deferralCause(usage: QuotaUsage | undefined): string {
  if (!usage || (usage.reads === 0 && usage.others === 0)) return TAKEN_BY_MORE_URGENT;
  return `the service's request budget is spent (${usageText(usage)})`;
}

/**
 * The gate of a sweep with a quota, built once its list is counted. A renewal goes out only
 * while the requests sent since then, retries included, are fewer than what was left: counting
 * one per certificate let a retried renewal (a 503, a 429) take the budget over its limit.
 * Parallel only when even every renewal sending its most requests cannot reach the limit. With
 * a shared budget, each attempt is also reserved as it is sent (another process may take what
 * was left meanwhile): a refusal there is `refused`.
 */
export function renewalGate(
  quota: QuotaView,
  requests: RequestLog,
  due: number,
  runId: string,
): RenewalGate {
  const start = requests.sent();
  let cause: string | undefined;
  const detailOf = (usage: QuotaUsage | undefined): string => {
    cause = deferralCause(usage);
    return cause === TAKEN_BY_MORE_URGENT
      ? deferredDetail(quota)
      : `${usageText(usage as QuotaUsage)}; the next sweep will decide it`;
  };
  return {
    sequential: quota.remaining < due * MOST_REQUESTS_PER_RENEWAL,
    async deferred() {
      if (requests.sent() - start < quota.remaining) return undefined;
      const usage = requests.shared
        ? await requests.usage(runId).catch(() => undefined)
        : undefined;
      return detailOf(usage);
    },
    refused: (usage) => detailOf(usage),
    cause: () => cause,
  };
}

/** Requests of the last 7 days, once this run's are written; undefined without storage. */
export async function requestsLast7Days(
  budget: SweepBudget | undefined,
  options: Context,
): Promise<number | undefined> {
  const requests = budget?.requests;
  if (!requests || requests.kind === "none") return undefined;
  const { unrecorded, failures } = await requests.settled();
  if (unrecorded > 0) {
    options.log.warn(
      `certsched: ${unrecorded} request(s) to the service could not be counted in the history: ${failures.join("; ")}`,
    );
  }
  try {
    return await requests.since(new Date(options.now().getTime() - REQUEST_WINDOW_MS));
  } catch (error) {
    options.log.warn(
      `certsched: the request count of the last 7 days could not be read: ${redact(ensureError(error).message)}`,
    );
    return undefined;
  }
}
