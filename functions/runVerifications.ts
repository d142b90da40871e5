import {
  app,
  type HttpRequest,
  type HttpResponseInit,
  type InvocationContext,
} from "@azure/functions";

/** POST /api/verifications: verify the inventory now; answers the results and counts. */
export async function runVerifications(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  // The work, and everything it needs, loads on the first call: registering the functions at
  // start-up then costs little more than @azure/functions itself (docs/performance.md).
  const { runVerifications: work } = await import("./handlers/runVerifications.js");
  return work(request, context);
}

app.http("runVerifications", {
  methods: ["POST"],
  authLevel: "function",
  route: "verifications",
  handler: runVerifications,
});
