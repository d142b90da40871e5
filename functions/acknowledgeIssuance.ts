import {
  app,
  type HttpRequest,
  type HttpResponseInit,
  type InvocationContext,
} from "@azure/functions";

/** POST /api/issuances/{id}/ack: a person acknowledges an unexpected issuance. */
export async function acknowledgeIssuance(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  // The work, and everything it needs, loads on the first call (docs/performance.md).
  const { acknowledgeIssuance: work } = await import("./handlers/acknowledgeIssuance.js");
  return work(request, context);
}

app.http("acknowledgeIssuance", {
  methods: ["POST"],
  authLevel: "function",
  route: "issuances/{id}/ack",
  handler: acknowledgeIssuance,
});
