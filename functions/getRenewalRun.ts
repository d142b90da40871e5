import {
  app,
  type HttpRequest,
  type HttpResponseInit,
  type InvocationContext,
} from "@azure/functions";

/** GET /api/renewals/{runId}: a queued run (queued, running, succeeded, failed; docs/runs.md). */
export async function getRenewalRun(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  // The work, and everything it needs, loads on the first call: registering the functions at
  // start-up then costs little more than @azure/functions itself (docs/performance.md).
  const { getRenewalRun: work } = await import("./handlers/getRenewalRun.js");
  return work(request, context);
}

app.http("getRenewalRun", {
  methods: ["GET"],
  authLevel: "function",
  route: "renewals/{runId}",
  handler: getRenewalRun,
});
