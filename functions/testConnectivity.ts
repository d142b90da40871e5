import {
  app,
  type HttpRequest,
  type HttpResponseInit,
  type InvocationContext,
} from "@azure/functions";

/** GET /api/connectivity: the public test operation (spec 4.5), with certsched's credentials. */
export async function testConnectivity(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  // The work, and everything it needs, loads on the first call: registering the functions at
  // start-up then costs little more than @azure/functions itself (docs/performance.md).
  const { testConnectivity: work } = await import("./handlers/testConnectivity.js");
  return work(request, context);
}

app.http("testConnectivity", {
  methods: ["GET"],
  authLevel: "function",
  route: "connectivity",
  handler: testConnectivity,
});
