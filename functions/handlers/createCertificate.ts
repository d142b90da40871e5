import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { contextLogger } from "../../shared/api/contextLogger.js";
import { handle } from "../../shared/api/handle.js";
import { noQuery, parseQuery } from "../../shared/api/parseQuery.js";
import { json } from "../../shared/api/problem.js";
import { readJsonBody } from "../../shared/api/readBody.js";
import { authorize } from "../../shared/auth/authorize.js";
import { OPERATOR } from "../../shared/auth/roles.js";
import { rememberCreated } from "../../shared/inventory/remember.js";
import { getRuntime } from "../../shared/runtime.js";
import { createCertificateInput, parseOrThrow } from "../../shared/schemas/index.js";
import { createConfirmed } from "../../shared/service/scheduleConfirmed.js";

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
    // No answer in time: confirmed with Get Certificate, or a 504 that says how to find out.
    const { status, message, confirmedBy } = await createConfirmed(
      getRuntime().client,
      input,
      getRuntime().now,
    );
    await rememberCreated(getRuntime(), contextLogger(context), input); // issue 12: watched from now
    contextLogger(context).info(
      `certsched create scheduled: ${input.certificateName} (${input.target})`,
    );
    const { certificateName } = input;
    return json(202, { status, certificateName, message, ...(confirmedBy ? { confirmedBy } : {}) });
  });
}
