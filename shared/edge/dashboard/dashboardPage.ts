import type { HttpResponseInit } from "@azure/functions";
import { z } from "zod";
import type { Runtime } from "../../app/services.js";
import { type DashboardSources, loadDashboard } from "../../core/dashboard/dashboardModel.js";
import type { Env } from "../../core/settings.js";
import { STATUS_WORDS } from "../../core/status/certificateStatus.js";
import { redactRecordStrings } from "../../lib/redact/redactStrings.js";
import { statusOptionsOf, statusSourcesOf } from "../../usecases/steps/loadStatus.js";
import { PAGE_HEADERS } from "./pageAssets.js";
import { renderDashboard } from "./renderDashboard.js";

/** The page's query: `?status=` filters the rows (one of the status words). */
export const dashboardQuery = z.object({
  status: z.enum(STATUS_WORDS, { error: `must be one of ${STATUS_WORDS.join(", ")}` }).optional(),
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

/** What the page reads: the runtime's inventory, ledger rows and history. */
export function dashboardSourcesOf(runtime: Runtime): DashboardSources {
  return { status: statusSourcesOf(runtime), history: runtime.history };
}

/**
 * The dashboard response: reads, renders, and sets the headers that lock the page down. The
 * settings it needs besides the runtime's are the host's schedule and the verification's warn
 * days, read from `env` (the app settings).
 */
export async function dashboardResponse(
  sources: DashboardSources,
  runtime: Runtime,
  query: DashboardQuery,
  env: Env,
  /** The page's URL as requested: its links to other routes start where its path does. */
  url?: string,
): Promise<HttpResponseInit> {
  // The same clock and rules as certsched status and GET /api/certificates.
  const options = statusOptionsOf(runtime, env);
  const model = await loadDashboard(sources, {
    ...options,
    schedule: env.CERTSCHED_RENEWAL_SCHEDULE,
    timeZone: env.WEBSITE_TIME_ZONE,
  });
  return {
    status: 200,
    headers: { ...PAGE_HEADERS },
    // Redacted before it is rendered (escaped HTML is no place to look for a token): the page
    // shows what storage holds, which may quote tokens another process was issued.
    body: renderDashboard(redactRecordStrings(model), {
      status: query.status,
      warnDays: options.warnDays,
      routeBase: url === undefined ? undefined : routeBaseOf(url),
    }),
  };
}
