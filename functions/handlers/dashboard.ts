import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getRuntime } from "../../shared/app/services.js";
import { dashboardSourcesOf } from "../../shared/app/sources.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { READER } from "../../shared/edge/auth/roles.js";
import { dashboardQuery, dashboardResponse } from "../../shared/edge/dashboard/dashboardPage.js";
import { handle } from "../../shared/edge/handle.js";
import { parseQuery } from "../../shared/edge/parseQuery.js";
import { dashboard as readDashboard } from "../../shared/usecases/dashboard.js";

/**
 * GET /api/dashboard: one HTML page with every certificate of the inventory, its status, days
 * left and last renewal and verification, the last and next run (docs/dashboard.md).
 */
export async function dashboard(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    const platform = platformEnv();
    authorize(request, READER, platform);
    const query = parseQuery(request, dashboardQuery);
    const runtime = getRuntime();
    // The host's own settings for the timer (it reads them itself; they are not certsched's).
    const page = await readDashboard(runtime, dashboardSourcesOf(runtime), {
      schedule: platform.CERTSCHED_RENEWAL_SCHEDULE,
      timeZone: platform.WEBSITE_TIME_ZONE,
    });
    return dashboardResponse(page, query, request.url);
  });
}
