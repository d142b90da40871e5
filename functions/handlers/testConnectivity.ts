import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { handle } from "../../shared/api/handle.js";
import { noQuery, parseQuery } from "../../shared/api/parseQuery.js";
import { json } from "../../shared/api/problem.js";
import { authorize } from "../../shared/auth/authorize.js";
import { READER } from "../../shared/auth/roles.js";
import { getRuntime } from "../../shared/runtime.js";

/** GET /api/connectivity: the public test operation (spec 4.5), with certsched's credentials. */
export async function testConnectivity(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER);
    parseQuery(request, noQuery);
    const message = await getRuntime().client.test();
    return json(200, { ok: true, message });
  });
}
