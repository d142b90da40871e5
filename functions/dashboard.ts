import {
  app,
  type HttpRequest,
  type HttpResponseInit,
  type InvocationContext,
} from "@azure/functions";

/**
 * GET /api/dashboard: one HTML page with every certificate of the inventory, its status, days
 * left and last renewal and verification, the last and next run (docs/dashboard.md).
 */
export async function dashboard(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  // The work, and everything it needs, loads on the first call: registering the functions at
  // start-up then costs little more than @azure/functions itself (docs/performance.md).
  const { dashboard: work } = await import("./handlers/dashboard.js");
  return work(request, context);
}

app.http("dashboard", {
  methods: ["GET"],
  authLevel: "function",
  route: "dashboard",
  handler: dashboard,
});
