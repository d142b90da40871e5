import { accountSummary } from "../status/accountSummary.js";
import { STATUS_WORDS, type StatusWord } from "../status/certificateStatus.js";
import { byDaysLeft, type DashboardModel, type DashboardRow } from "./dashboardModel.js";

/**
 * The dashboard of several accounts, merged from each account's own model (read
 * from its own tables): every row with its account, counts summed, the latest run of any
 * account, the requests summed when every account's count is known, problems named with their
 * account, and one summary line per account with the figures GET /api/certificates gives
 * (core/status/accountSummary.ts, the same function).
 */

export interface AccountModel {
  readonly account: string;
  readonly model: DashboardModel;
  /** Why the account's certificates could not be read, when they could not. */
  readonly unreadable?: string | undefined;
}

/** Fewest days left first, as one account's page; the account breaks a tie of names. */
function byDaysThenAccount(a: DashboardRow, b: DashboardRow): number {
  const account = (r: DashboardRow) => r.account ?? "";
  return byDaysLeft(a, b) || (account(a) < account(b) ? -1 : account(a) > account(b) ? 1 : 0);
}

export function mergeAccountModels(
  parts: readonly AccountModel[],
  generatedAt: string,
  nextRun: DashboardModel["nextRun"],
): DashboardModel {
  const rows = parts
    .flatMap((p) => p.model.rows.map((r) => ({ ...r, account: p.account })))
    .sort(byDaysThenAccount);
  const counts = Object.fromEntries(STATUS_WORDS.map((w) => [w, 0])) as Record<StatusWord, number>;
  for (const r of rows) counts[r.status] += 1;
  const runs = parts.flatMap((p) =>
    p.model.lastRun ? [{ ...p.model.lastRun, account: p.account }] : [],
  );
  const lastRun = runs.sort((a, b) => (a.finishedAt < b.finishedAt ? 1 : -1))[0];
  const requests = parts.map((p) => p.model.requestsLastWeek);
  const known = requests.every((n): n is number => n !== undefined);
  return {
    generatedAt,
    rows,
    counts,
    lastRun,
    nextRun,
    requestsLastWeek: known ? requests.reduce((a, b) => a + b, 0) : undefined,
    problems: parts.flatMap((p) => p.model.problems.map((line) => `account ${p.account}: ${line}`)),
    accounts: parts.map((p) =>
      accountSummary(p.account, p.model.rows, {
        requests7d: p.model.requestsLastWeek,
        problem: p.unreadable,
      }),
    ),
  };
}
