import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { handle } from "../../shared/api/handle.js";
import { parseQuery } from "../../shared/api/parseQuery.js";
import { json } from "../../shared/api/problem.js";
import { authorize } from "../../shared/auth/authorize.js";
import { READER } from "../../shared/auth/roles.js";
import { getRuntime } from "../../shared/runtime.js";
import { statusList } from "../../shared/status/statusList.js";
import { statusPageQuery } from "../../shared/status/statusPage.js";

/**
 * GET /api/certificates[?top=1..200][&continuation=...][&status=word,...]: every certificate
 * certsched knows, with its status (shared/status/certificateStatus.ts), a page at a time in
 * name order. Reads the app's storage only: listing sends no request to the service.
 */
export async function listCertificates(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER);
    const query = parseQuery(request, statusPageQuery);
    return json(200, await statusList(getRuntime(), query, process.env));
  });
}
