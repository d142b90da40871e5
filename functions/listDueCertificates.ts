import {
  app,
  type HttpRequest,
  type HttpResponseInit,
  type InvocationContext,
} from "@azure/functions";

/** GET /api/certificates/due: certificates expiring within 20 days (spec 4.3). */
export async function listDueCertificates(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  // The work, and everything it needs, loads on the first call: registering the functions at
  // start-up then costs little more than @azure/functions itself (docs/performance.md).
  const { listDueCertificates: work } = await import("./handlers/listDueCertificates.js");
  return work(request, context);
}

app.http("listDueCertificates", {
  methods: ["GET"],
  authLevel: "function",
  route: "certificates/due",
  handler: listDueCertificates,
});
