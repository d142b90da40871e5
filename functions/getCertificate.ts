import {
  app,
  type HttpRequest,
  type HttpResponseInit,
  type InvocationContext,
} from "@azure/functions";

/**
 * GET /api/certificates/{name}: one certificate as the service holds it (Get Certificate), as
 * the due list shows its records (no password, PFX or private-key links), with its status and
 * recent history. The host matches the literal route certificates/due first, so a certificate
 * named "due" cannot be read here (use `certsched get due`).
 */
export async function getCertificate(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  // The work, and everything it needs, loads on the first call: registering the functions at
  // start-up then costs little more than @azure/functions itself (docs/performance.md).
  const { getCertificate: work } = await import("./handlers/getCertificate.js");
  return work(request, context);
}

app.http("getCertificate", {
  methods: ["GET"],
  authLevel: "function",
  route: "certificates/{name}",
  handler: getCertificate,
});
