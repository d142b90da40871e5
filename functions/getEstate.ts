import {
  app,
  type HttpRequest,
  type HttpResponseInit,
  type InvocationContext,
} from "@azure/functions";

/** GET /api/estate: every certificate each account's identity can see, and the ones certsched does not keep. */
export async function getEstate(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  // The work, and everything it needs, loads on the first call (docs/performance.md).
  const { getEstate: work } = await import("./handlers/getEstate.js");
  return work(request, context);
}

app.http("getEstate", {
  methods: ["GET"],
  authLevel: "function",
  route: "estate",
  handler: getEstate,
});
