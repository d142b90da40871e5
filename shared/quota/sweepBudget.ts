import { ensureError } from "../errors.js";
import { RENEW } from "../http/retryPolicy.js";
import type { Logger } from "../log.js";
import { redact } from "../redact.js";
import type { CertificateRecord } from "../schemas/records.js";
import { deferredDetail, type QuotaView } from "../sweep/summary.js";
import { REQUEST_WINDOW_MS, type RequestLog } from "./requestLog.js";
import { nearQuota, type ServiceQuota } from "./serviceQuota.js";

/** What a sweep needs of the request budget (issue 16): the count, and the quota if set. */
export interface SweepBudget {
  readonly requests: RequestLog;
  readonly quota: ServiceQuota | undefined;
}

/** The sweep's log and clock. */
interface Context {
  readonly log: Logger;
  readonly now: () => Date;
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
  options: Context,
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
    used = await requests.since(new Date(options.now().getTime() - quota.windowMs));
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
  deferred(): string | undefined;
}

/**
 * The gate of a sweep with a quota, built once its list is counted. A renewal goes out only
 * while the requests sent since then, retries included, are fewer than what was left: counting
 * one per certificate let a retried renewal (a 503, a 429) take the budget over its limit.
 * Parallel only when even every renewal sending its most requests cannot reach the limit.
 */
export function renewalGate(quota: QuotaView, requests: RequestLog, due: number): RenewalGate {
  const start = requests.sent();
  return {
    sequential: quota.remaining < due * MOST_REQUESTS_PER_RENEWAL,
    deferred: () =>
      requests.sent() - start >= quota.remaining ? deferredDetail(quota) : undefined,
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
