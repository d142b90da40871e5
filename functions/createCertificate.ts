import {
  app,
  type HttpRequest,
  type HttpResponseInit,
  type InvocationContext,
} from "@azure/functions";

/** POST /api/certificates: schedules creation (spec 4.1); certsched injects the tokens. */
export async function createCertificate(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  // The work, and everything it needs, loads on the first call: registering the functions at
  // start-up then costs little more than @azure/functions itself (docs/performance.md).
  const { createCertificate: work } = await import("./handlers/createCertificate.js");
  return work(request, context);
}

app.http("createCertificate", {
  methods: ["POST"],
  authLevel: "function",
  route: "certificates",
  handler: createCertificate,
});
