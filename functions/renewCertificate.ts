import {
  app,
  type HttpRequest,
  type HttpResponseInit,
  type InvocationContext,
} from "@azure/functions";

/** POST /api/certificates/{name}/renew: schedules renewal by name (spec 4.2, v3). */
export async function renewCertificate(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  // The work, and everything it needs, loads on the first call: registering the functions at
  // start-up then costs little more than @azure/functions itself (docs/performance.md).
  const { renewCertificate: work } = await import("./handlers/renewCertificate.js");
  return work(request, context);
}

app.http("renewCertificate", {
  methods: ["POST"],
  authLevel: "function",
  route: "certificates/{name}/renew",
  handler: renewCertificate,
});
