import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { handle } from "../../shared/api/handle.js";
import { parseQuery } from "../../shared/api/parseQuery.js";
import { authorize } from "../../shared/auth/authorize.js";
import { READER } from "../../shared/auth/roles.js";
import {
  dashboardQuery,
  dashboardResponse,
  dashboardSourcesOf,
} from "../../shared/dashboard/dashboardPage.js";
import { getRuntime } from "../../shared/runtime.js";

/**
 * GET /api/dashboard: one HTML page with every certificate of the inventory, its status, days
 * left and last renewal and verification, the last and next run (docs/dashboard.md).
 */
export async function dashboard(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER);
    const query = parseQuery(request, dashboardQuery);
    const runtime = getRuntime();
    return dashboardResponse(dashboardSourcesOf(runtime), runtime, query, process.env, request.url);
  });
}
