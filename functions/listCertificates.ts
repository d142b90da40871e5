import {
  app,
  type HttpRequest,
  type HttpResponseInit,
  type InvocationContext,
} from "@azure/functions";

/**
 * GET /api/certificates: the inventory with each certificate's status, paged
 * (`?top=`, `?continuation=`, `?status=`). The host matches the literal routes
 * certificates/due and certificates/{name} apart from this one: it has no segment after
 * "certificates".
 */
export async function listCertificates(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  // The work, and everything it needs, loads on the first call: registering the functions at
  // start-up then costs little more than @azure/functions itself (docs/performance.md).
  const { listCertificates: work } = await import("./handlers/listCertificates.js");
  return work(request, context);
}

app.http("listCertificates", {
  methods: ["GET"],
  authLevel: "function",
  route: "certificates",
  handler: listCertificates,
});
