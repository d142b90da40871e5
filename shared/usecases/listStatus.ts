import { REQUEST_WINDOW_MS, type RequestLog } from "../core/ports/requestLog.js";
import type { TransparencyStore } from "../core/ports/transparency.js";
import type { Settings } from "../core/settings.js";
import { type AccountSummary, accountSummary } from "../core/status/accountSummary.js";
import {
  type CertificateStatus,
  certificateStatus,
  type StatusOptions,
} from "../core/status/certificateStatus.js";
import {
  type IssuanceStatus,
  issuanceStatusOf,
  unreadableIssuances,
} from "../core/status/issuanceStatus.js";
import { pageOf, type StatusPageQuery } from "../core/status/statusPage.js";
import type { StatusSources } from "../core/status/statusSources.js";
import { AccountCalendar } from "../core/windows/timing.js";
import { ensureError } from "../lib/errors.js";
import { redact } from "../lib/redact/redact.js";
import { loadStatus, type StatusOptionsPorts, statusOptionsOf } from "./steps/loadStatus.js";

/** The clock and the settings a status is judged with, the renewal calendar among them when set. */
export interface CalendarStatusPorts extends StatusOptionsPorts {
  readonly settings: StatusOptionsPorts["settings"] & Partial<Pick<Settings, "renewalCalendar">>;
  /**
   * The renewal timer's next firing (CERTSCHED_RENEWAL_SCHEDULE), when known: a status then
   * says "outside" only when the sweep would renew it outside its windows, at its last safe run.
   */
  readonly renewalTimer?: StatusOptions["nextTick"];
}

/**
 * statusOptionsOf, with the account's renewal calendar when its settings declare one: each
 * status then says its next window (`window`).
 */
export function statusOptionsFor(ports: CalendarStatusPorts, account: string): StatusOptions {
  const options = statusOptionsOf(ports);
  const calendar = ports.settings.renewalCalendar;
  if (!calendar) return options;
  return {
    ...options,
    calendar: new AccountCalendar(calendar, account),
    nextTick: ports.renewalTimer,
  };
}

/** What a status list needs besides its sources: the clock, the settings, the request count. */
export interface StatusListPorts extends CalendarStatusPorts {
  readonly requests: Pick<RequestLog, "kind" | "since">;
}

/** One certificate's status, with the account it belongs to. */
export type AccountStatus = CertificateStatus & { readonly account: string };

/**
 * The answer of GET /api/certificates. `items` in name order (then account order); `next` when
 * more follow; `requests7d` the requests sent to the service in the last 7 days (left out when
 * the history cannot say, and when the list spans several accounts: each account's line has
 * its own); `invalid` the storage rows that could not be read; `accounts` one summary line per
 * account listed (core/status/accountSummary.ts), over all its certificates, whatever the page
 * or the status filter.
 */
export interface StatusList {
  readonly items: AccountStatus[];
  readonly next?: string;
  readonly requests7d?: number;
  readonly invalid?: string[];
  readonly accounts: AccountSummary[];
}

/** One account's certificates with status and its summary; reads storage only. */
export interface AccountStatuses {
  readonly account: string;
  readonly statuses: AccountStatus[];
  readonly invalid: string[];
  readonly summary: AccountSummary;
}

/** One account's part of the list: every certificate, not a page (paging spans the accounts). */
export async function accountStatuses(
  account: string,
  ports: StatusListPorts,
  sources: StatusSources,
): Promise<AccountStatuses> {
  const options = statusOptionsFor(ports, account);
  const since = new Date(options.now.getTime() - REQUEST_WINDOW_MS);
  const [loaded, requests7d] = await Promise.all([
    // Every certificate, not loadStatus's first 5,000 by name: a page is cut after the
    // continuation's name, so a bound before it would end the listing early, with no `next`.
    loadStatus(sources, { max: Number.POSITIVE_INFINITY }),
    // The count is a help, not the answer: a history that cannot be read leaves it out.
    ports.requests.kind === "none"
      ? Promise.resolve(undefined)
      : ports.requests.since(since).catch(() => undefined),
  ]);
  const statuses = loaded.inputs.map((input) => ({
    account,
    ...certificateStatus(input, options),
  }));
  const summary = accountSummary(
    account,
    statuses.map((s) => ({
      status: s.status,
      daysLeft: s.expiry.servedDaysLeft ?? s.expiry.serviceDaysLeft,
    })),
    { requests7d },
  );
  return { account, statuses, invalid: loaded.invalid, summary };
}

/**
 * One page over the accounts' parts (each from accountStatuses). With more than one account,
 * an unreadable row is named with its account.
 */
export function statusPageOf(
  parts: readonly AccountStatuses[],
  query: StatusPageQuery,
): StatusList {
  const page = pageOf(
    parts.flatMap((p) => p.statuses),
    query,
  );
  const [only, ...others] = parts;
  const single = only !== undefined && others.length === 0 ? only : undefined;
  const invalid = parts.flatMap((p) =>
    single ? p.invalid : p.invalid.map((line) => `account ${p.account}: ${line}`),
  );
  const requests7d = single?.summary.requests7d;
  return {
    ...page,
    ...(requests7d !== undefined ? { requests7d } : {}),
    ...(invalid.length > 0 ? { invalid } : {}),
    accounts: parts.map((p) => p.summary),
  };
}

/** One page of one account's inventory with status; reads storage only (no request to the service). */
export async function statusList(
  ports: StatusListPorts & { readonly account: string },
  sources: StatusSources,
  query: StatusPageQuery,
): Promise<StatusList> {
  return statusPageOf([await accountStatuses(ports.account, ports, sources)], query);
}

/** Where a status reads an account's Certificate Transparency issuances. */
export type IssuanceReader = Pick<TransparencyStore, "kind" | "list">;

/**
 * One account's unexpected and pending issuances (core/status/issuanceStatus.ts), read best
 * effort: a store that throws gives a problem line, never a failed status. Undefined without a
 * store (no storage: nothing was ever watched).
 */
export async function readIssuanceStatus(
  store: IssuanceReader | undefined,
  account: string,
): Promise<IssuanceStatus | undefined> {
  if (store === undefined || store.kind === "none") return undefined;
  try {
    return issuanceStatusOf(account, await store.list(account));
  } catch (error) {
    return unreadableIssuances(
      account,
      `Certificate Transparency issuances could not be read: ${redact(ensureError(error).message)}`,
    );
  }
}
