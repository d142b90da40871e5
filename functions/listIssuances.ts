import {
  app,
  type HttpRequest,
  type HttpResponseInit,
  type InvocationContext,
} from "@azure/functions";

/** GET /api/issuances: the Certificate Transparency issuances certsched keeps, every account's. */
export async function listIssuances(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  // The work, and everything it needs, loads on the first call (docs/performance.md).
  const { listIssuances: work } = await import("./handlers/listIssuances.js");
  return work(request, context);
}

app.http("listIssuances", {
  methods: ["GET"],
  authLevel: "function",
  route: "issuances",
  handler: listIssuances,
});
