import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getServices } from "../../shared/app/services.js";
import { createCertificateInput } from "../../shared/core/certificate/createRequest.js";
import { rememberCreated } from "../../shared/core/inventory/fromRecords.js";
import { accountNote } from "../../shared/edge/accountNote.js";
import { accountQuery, oneAccount } from "../../shared/edge/accountQuery.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { OPERATOR } from "../../shared/edge/auth/roles.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { handle } from "../../shared/edge/handle.js";
import { parseQuery } from "../../shared/edge/parseQuery.js";
import { json } from "../../shared/edge/problem.js";
import { readJsonBody } from "../../shared/edge/readBody.js";
import { parseOrThrow } from "../../shared/lib/zodProblems.js";
import { createConfirmed } from "../../shared/usecases/createCertificate.js";

/**
 * POST /api/certificates[?account=NAME]: schedules creation (spec 4.1) in the account's service;
 * certsched injects the account's tokens. `account` is required when more than one account is
 * declared (edge/accountQuery.ts).
 */
export async function createCertificate(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async (about) => {
    authorize(request, OPERATOR, platformEnv());
    const query = parseQuery(request, accountQuery);
    const services = getServices();
    const account = oneAccount(services.accounts, query.account);
    const runtime = services.forAccount(account);
    // A failure's log line names the account (with accounts declared).
    about(accountNote(runtime.settings));
    const input = parseOrThrow(
      createCertificateInput,
      await readJsonBody(request),
      "create request",
    );
    // No answer in time: confirmed with Get Certificate, or a 504 that says how to find out.
    const { status, message, confirmedBy } = await createConfirmed(
      runtime.client,
      input,
      runtime.now,
    );
    await rememberCreated(runtime, contextLogger(context), input); // Watched for verification from now.
    contextLogger(context).info(
      `certsched create scheduled: ${input.certificateName} (${input.target})${accountNote(runtime.settings)}`,
    );
    const { certificateName } = input;
    return json(202, {
      status,
      certificateName,
      account,
      message,
      ...(confirmedBy ? { confirmedBy } : {}),
    });
  });
}
