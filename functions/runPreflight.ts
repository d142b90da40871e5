import {
  app,
  type HttpRequest,
  type HttpResponseInit,
  type InvocationContext,
} from "@azure/functions";

/** POST /api/preflight: preflight now; answers the results and counts. */
export async function runPreflight(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  // The work, and everything it needs (the ARM SDKs included), loads on the first call:
  // registering the functions at start-up then costs little more than @azure/functions itself
  // (docs/performance.md).
  const { runPreflight: work } = await import("./handlers/runPreflight.js");
  return work(request, context);
}

app.http("runPreflight", {
  methods: ["POST"],
  authLevel: "function",
  route: "preflight",
  handler: runPreflight,
});
