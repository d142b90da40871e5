import {
  app,
  type HttpRequest,
  type HttpResponseInit,
  type InvocationContext,
} from "@azure/functions";

/**
 * POST /api/renewals[?dryRun=true][&wait=N]: queues a renewal sweep and answers 202 with the run
 * and its Location (GET /api/renewals/{runId}); the queue trigger runQueuedRenewals sweeps, off
 * the request, so the platform's 230 s cut of HTTP requests never cuts a sweep (docs/runs.md).
 */
export async function runRenewals(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  // The work, and everything it needs, loads on the first call: registering the functions at
  // start-up then costs little more than @azure/functions itself (docs/performance.md).
  const { runRenewals: work } = await import("./handlers/runRenewals.js");
  return work(request, context);
}

app.http("runRenewals", {
  methods: ["POST"],
  authLevel: "function",
  route: "renewals",
  handler: runRenewals,
});
