import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { handle } from "../../shared/api/handle.js";
import { noQuery, parseQuery } from "../../shared/api/parseQuery.js";
import { json } from "../../shared/api/problem.js";
import { certificateView } from "../../shared/api/views.js";
import { authorize } from "../../shared/auth/authorize.js";
import { READER } from "../../shared/auth/roles.js";
import { getRuntime } from "../../shared/runtime.js";

/** GET /api/certificates/due: certificates expiring within 20 days (spec 4.3). */
export async function listDueCertificates(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER);
    parseQuery(request, noQuery);
    const runtime = getRuntime();
    const { certificates, rejected } = await runtime.client.listDue();
    const now = runtime.now();
    return json(200, {
      certificates: certificates.map((c) => certificateView(c, now)),
      ...(rejected.length > 0 ? { rejected } : {}),
    });
  });
}
