import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { contextLogger } from "../../shared/api/contextLogger.js";
import { handle } from "../../shared/api/handle.js";
import { noQuery, parseQuery } from "../../shared/api/parseQuery.js";
import { json } from "../../shared/api/problem.js";
import { certificateView } from "../../shared/api/views.js";
import { authorize } from "../../shared/auth/authorize.js";
import { READER } from "../../shared/auth/roles.js";
import { fromServiceRecord, remember } from "../../shared/inventory/remember.js";
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
    // Kept as a sweep's list is (issue 20): what is due is what renewals will need of the
    // request budget, which reads may never take. A failure is a warning, never the answer's.
    await remember(
      runtime,
      contextLogger(context),
      certificates.map((c) => fromServiceRecord(c, "due-list", now)),
    );
    return json(200, {
      certificates: certificates.map((c) => certificateView(c, now)),
      ...(rejected.length > 0 ? { rejected } : {}),
    });
  });
}
