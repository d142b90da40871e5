import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getRuntime } from "../../shared/app/services.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { READER } from "../../shared/edge/auth/roles.js";
import {
  dashboardQuery,
  dashboardResponse,
  dashboardSourcesOf,
} from "../../shared/edge/dashboard/dashboardPage.js";
import { handle } from "../../shared/edge/handle.js";
import { parseQuery } from "../../shared/edge/parseQuery.js";

/**
 * GET /api/dashboard: one HTML page with every certificate of the inventory, its status, days
 * left and last renewal and verification, the last and next run (docs/dashboard.md).
 */
export async function dashboard(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER, platformEnv());
    const query = parseQuery(request, dashboardQuery);
    const runtime = getRuntime();
    return dashboardResponse(dashboardSourcesOf(runtime), runtime, query, process.env, request.url);
  });
}
