import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getRuntime } from "../../shared/app/services.js";
import { statusSourcesOf } from "../../shared/app/sources.js";
import { statusPageQuery } from "../../shared/core/status/statusPage.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { READER } from "../../shared/edge/auth/roles.js";
import { handle } from "../../shared/edge/handle.js";
import { parseQuery } from "../../shared/edge/parseQuery.js";
import { json } from "../../shared/edge/problem.js";
import { statusList } from "../../shared/usecases/listStatus.js";

/**
 * GET /api/certificates[?top=1..200][&continuation=...][&status=word,...]: every certificate
 * certsched knows, with its status (shared/core/status/certificateStatus.ts), a page at a time in
 * name order. Reads the app's storage only: listing sends no request to the service.
 */
export async function listCertificates(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER, platformEnv());
    const query = parseQuery(request, statusPageQuery);
    const runtime = getRuntime();
    return json(200, await statusList(runtime, statusSourcesOf(runtime), query));
  });
}
