import {
  app,
  type HttpRequest,
  type HttpResponseInit,
  type InvocationContext,
} from "@azure/functions";

/** GET /api/preflight: the last preflight of every certificate in the inventory. */
export async function getPreflight(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  // The work, and everything it needs, loads on the first call: registering the functions at
  // start-up then costs little more than @azure/functions itself (docs/performance.md).
  const { getPreflight: work } = await import("./handlers/getPreflight.js");
  return work(request, context);
}

app.http("getPreflight", {
  methods: ["GET"],
  authLevel: "function",
  route: "preflight",
  handler: getPreflight,
});
