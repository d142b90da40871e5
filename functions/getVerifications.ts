import {
  app,
  type HttpRequest,
  type HttpResponseInit,
  type InvocationContext,
} from "@azure/functions";

/** GET /api/verifications: the latest verification of every certificate in the inventory. */
export async function getVerifications(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  // The work, and everything it needs, loads on the first call: registering the functions at
  // start-up then costs little more than @azure/functions itself (docs/performance.md).
  const { getVerifications: work } = await import("./handlers/getVerifications.js");
  return work(request, context);
}

app.http("getVerifications", {
  methods: ["GET"],
  authLevel: "function",
  route: "verifications",
  handler: getVerifications,
});
