import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getRuntime } from "../../shared/app/services.js";
import { certificateView } from "../../shared/core/certificate/certificateView.js";
import { fromServiceRecord, remember } from "../../shared/core/inventory/fromRecords.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { READER } from "../../shared/edge/auth/roles.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { handle } from "../../shared/edge/handle.js";
import { noQuery, parseQuery } from "../../shared/edge/parseQuery.js";
import { json } from "../../shared/edge/problem.js";

/** GET /api/certificates/due: certificates expiring within 20 days (spec 4.3). */
export async function listDueCertificates(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER, platformEnv());
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
