import type { HttpResponseInit } from "@azure/functions";
import { z } from "zod";
import type { DashboardModel } from "../../core/dashboard/dashboardModel.js";
import type { EstateStatus } from "../../core/estate/kept.js";
import { STATUS_WORDS } from "../../core/status/certificateStatus.js";
import type { IssuanceStatus } from "../../core/status/issuanceStatus.js";
import { PREFLIGHT_FILTERS } from "../../core/status/preflightView.js";
import { redactRecordStrings } from "../../lib/redact/redactStrings.js";
import { accountParameter } from "../accountQuery.js";
import { PAGE_HEADERS } from "./pageAssets.js";
import { renderDashboard } from "./renderDashboard.js";

/**
 * The page's query: `?status=` filters the rows (one of the status words); `?account=` shows
 * one account's (the handler checks the name against the declared accounts); `?preflight=`
 * those whose last preflight is ready, will-fail or unknown, or `none` (never checked).
 */
export const dashboardQuery = z.object({
  status: z.enum(STATUS_WORDS, { error: `must be one of ${STATUS_WORDS.join(", ")}` }).optional(),
  preflight: z
    .enum(PREFLIGHT_FILTERS, { error: `must be one of ${PREFLIGHT_FILTERS.join(", ")}` })
    .optional(),
  ...accountParameter,
});
export type DashboardQuery = z.output<typeof dashboardQuery>;

/**
 * The path the app's routes start with, from the page's own URL: "/api/" for /api/dashboard and
 * /api/dashboard/ (a relative link from the latter would land under /api/dashboard/), whatever
 * the host's route prefix. Only plain segments are taken: a path like //evil.example/dashboard
 * must never make a link leave this app (the page's script puts the function key on its links).
 * undefined: not a dashboard path; links stay relative.
 */
export function routeBaseOf(url: string): string | undefined {
  const base = /^(.*\/)dashboard\/?$/i.exec(new URL(url).pathname)?.[1];
  return base !== undefined && /^(?:\/[A-Za-z0-9_.~-]+)*\/$/.test(base) && !/\/\.\.?\//.test(base)
    ? base
    : undefined;
}

/**
 * The dashboard response: renders the page (usecases/dashboard.ts read it) and sets the headers
 * that lock it down.
 */
export function dashboardResponse(
  page: {
    readonly model: DashboardModel;
    readonly warnDays: number;
    readonly issuances?: readonly IssuanceStatus[];
    readonly estates?: readonly EstateStatus[];
  },
  query: DashboardQuery,
  /** The page's URL as requested: its links to other routes start where its path does. */
  url?: string,
): HttpResponseInit {
  return {
    status: 200,
    headers: { ...PAGE_HEADERS },
    // Redacted before it is rendered (escaped HTML is no place to look for a token): the page
    // shows what storage holds, which may quote tokens another process was issued.
    body: renderDashboard(
      redactRecordStrings(page.model),
      {
        status: query.status,
        account: query.account,
        preflight: query.preflight,
        warnDays: page.warnDays,
        routeBase: url === undefined ? undefined : routeBaseOf(url),
      },
      { issuances: page.issuances, estates: page.estates },
    ),
  };
}
