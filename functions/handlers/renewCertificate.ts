import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { z } from "zod";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getRuntime } from "../../shared/app/services.js";
import { requiredText } from "../../shared/core/certificate/fields.js";
import { requesterOf } from "../../shared/core/renewal/requester.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { callerOf } from "../../shared/edge/auth/callerOf.js";
import { OPERATOR } from "../../shared/edge/auth/roles.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { handle } from "../../shared/edge/handle.js";
import { noQuery, parseQuery } from "../../shared/edge/parseQuery.js";
import { json } from "../../shared/edge/problem.js";
import { parseOrThrow } from "../../shared/lib/zodProblems.js";
import { renewByName } from "../../shared/usecases/renewByName.js";

const params = z.object({ name: requiredText() });

/** POST /api/certificates/{name}/renew: schedules renewal by name (spec 4.2, v3). */
export async function renewCertificate(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, OPERATOR, platformEnv());
    parseQuery(request, noQuery);
    const { name } = parseOrThrow(params, { name: request.params.name }, "route");
    const log = contextLogger(context);
    // Looked up, then claimed and recorded in the ledger and the history like a sweep's renewal.
    const renewed = await renewByName(
      getRuntime(),
      name,
      requesterOf(callerOf(request, platformEnv())),
      log,
    );
    const done = renewed.status === "scheduled" ? "scheduled" : "already in progress";
    log.info(`certsched renewal ${done} (v3): ${name}`);
    const { status, message, note, confirmedBy } = renewed;
    return json(202, {
      status,
      certificateName: name,
      message,
      ...(note ? { note } : {}),
      ...(confirmedBy ? { confirmedBy } : {}),
    });
  });
}
