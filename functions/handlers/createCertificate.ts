import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getRuntime } from "../../shared/app/services.js";
import { createCertificateInput } from "../../shared/core/certificate/createRequest.js";
import { rememberCreated } from "../../shared/core/inventory/fromRecords.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { OPERATOR } from "../../shared/edge/auth/roles.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { handle } from "../../shared/edge/handle.js";
import { noQuery, parseQuery } from "../../shared/edge/parseQuery.js";
import { json } from "../../shared/edge/problem.js";
import { readJsonBody } from "../../shared/edge/readBody.js";
import { parseOrThrow } from "../../shared/lib/zodProblems.js";
import { createConfirmed } from "../../shared/usecases/createCertificate.js";

/** POST /api/certificates: schedules creation (spec 4.1); certsched injects the tokens. */
export async function createCertificate(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, OPERATOR, platformEnv());
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
