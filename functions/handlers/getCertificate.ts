import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { z } from "zod";
import { handle } from "../../shared/api/handle.js";
import { noQuery, parseQuery } from "../../shared/api/parseQuery.js";
import { json } from "../../shared/api/problem.js";
import { certificateView } from "../../shared/api/views.js";
import { authorize } from "../../shared/auth/authorize.js";
import { READER } from "../../shared/auth/roles.js";
import { getRuntime } from "../../shared/runtime.js";
import { parseOrThrow, requiredText } from "../../shared/schemas/index.js";

const params = z.object({ name: requiredText() });

/**
 * GET /api/certificates/{name}: one certificate as the service holds it (Get Certificate), as
 * the due list shows its records: no password, PFX or private-key links. The host matches the
 * literal route certificates/due first, so a certificate named "due" cannot be read here (use
 * `certsched get due`).
 */
export async function getCertificate(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER);
    parseQuery(request, noQuery);
    const { name } = parseOrThrow(params, { name: request.params.name }, "route");
    const runtime = getRuntime();
    return json(200, certificateView(await runtime.client.get(name), runtime.now()));
  });
}
