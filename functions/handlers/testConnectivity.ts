import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getRuntime } from "../../shared/app/services.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { READER } from "../../shared/edge/auth/roles.js";
import { handle } from "../../shared/edge/handle.js";
import { noQuery, parseQuery } from "../../shared/edge/parseQuery.js";
import { json } from "../../shared/edge/problem.js";

/** GET /api/connectivity: the public test operation (spec 4.5), with certsched's credentials. */
export async function testConnectivity(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER, platformEnv());
    parseQuery(request, noQuery);
    const message = await getRuntime().client.test();
    return json(200, { ok: true, message });
  });
}
