import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { contextLogger } from "../../shared/api/contextLogger.js";
import { handle } from "../../shared/api/handle.js";
import { noQuery, parseQuery } from "../../shared/api/parseQuery.js";
import { json } from "../../shared/api/problem.js";
import { readJsonBody } from "../../shared/api/readBody.js";
import { authorize } from "../../shared/auth/authorize.js";
import { OPERATOR } from "../../shared/auth/roles.js";
import { getRuntime } from "../../shared/runtime.js";
import { createCertificateInput, parseOrThrow } from "../../shared/schemas/index.js";

/** POST /api/certificates: schedules creation (spec 4.1); certsched injects the tokens. */
export async function createCertificate(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, OPERATOR);
    parseQuery(request, noQuery);
    const input = parseOrThrow(
      createCertificateInput,
      await readJsonBody(request),
      "create request",
    );
    const message = await getRuntime().client.create(input);
    contextLogger(context).info(
      `certsched create scheduled: ${input.certificateName} (${input.target})`,
    );
    return json(202, { status: "scheduled", certificateName: input.certificateName, message });
  });
}
