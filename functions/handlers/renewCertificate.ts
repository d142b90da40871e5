import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { z } from "zod";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getServices } from "../../shared/app/services.js";
import { requiredText } from "../../shared/core/certificate/fields.js";
import { requesterOf } from "../../shared/core/renewal/requester.js";
import { accountNote } from "../../shared/edge/accountNote.js";
import { accountParameter, oneAccount } from "../../shared/edge/accountQuery.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { callerOf } from "../../shared/edge/auth/callerOf.js";
import { OPERATOR } from "../../shared/edge/auth/roles.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { handle } from "../../shared/edge/handle.js";
import { parseQuery } from "../../shared/edge/parseQuery.js";
import { json, problem } from "../../shared/edge/problem.js";
import { parseOrThrow } from "../../shared/lib/zodProblems.js";
import { renewByName } from "../../shared/usecases/renewByName.js";

const params = z.object({ name: requiredText() });
const renewQuery = z.object({
  ...accountParameter,
  force: z
    .enum(["true", "false"], { error: 'must be "true" or "false"' })
    .optional()
    .transform((v) => v === "true"),
});

/**
 * POST /api/certificates/{name}/renew[?account=NAME][&force=true]: schedules renewal by name
 * (spec 4.2, v3) in the account's service, claimed in the account's ledger. `account` is
 * required when more than one account is declared (edge/accountQuery.ts). A certificate its
 * last preflight blocks, or one its certificate policy disables, is answered 409 and nothing is
 * sent, unless `force=true`. Renewal windows and freezes do not hold a renewal a person asks for.
 */
export async function renewCertificate(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async (about) => {
    authorize(request, OPERATOR, platformEnv());
    const { force, ...query } = parseQuery(request, renewQuery);
    const services = getServices();
    const account = oneAccount(services.accounts, query.account);
    const runtime = services.forAccount(account);
    // A failure's log line names the account (with accounts declared).
    about(accountNote(runtime.settings));
    const { name } = parseOrThrow(params, { name: request.params.name }, "route");
    const log = contextLogger(context);
    // Looked up, then claimed and recorded in the ledger and the history like a sweep's renewal.
    const renewed = await renewByName(
      runtime,
      name,
      requesterOf(callerOf(request, platformEnv())),
      log,
      { force },
    );
    if (renewed.status === "blocked") {
      log.warn(
        `certsched renewal not sent: ${name}: ${renewed.message}${accountNote(runtime.settings)}`,
      );
      return problem(
        409,
        "PREFLIGHT_BLOCKED",
        "Blocked by the last preflight",
        `${name}: ${renewed.message}. Nothing was sent. Fix it and run the preflight again, or renew anyway with force=true.`,
        {
          errors: [
            {
              name: "force",
              message: `is not true: the last preflight blocks this renewal (${renewed.blockedBy}); send force=true to renew anyway`,
            },
          ],
        },
      );
    }
    if (renewed.status === "disabled") {
      log.warn(
        `certsched renewal not sent: ${name}: ${renewed.message}${accountNote(runtime.settings)}`,
      );
      return problem(
        409,
        "POLICY_DISABLED",
        "Disabled by its certificate policy",
        `${name}: ${renewed.message}. Renew anyway with force=true.`,
        {
          errors: [
            {
              name: "force",
              message: `is not true: the certificate policy ${renewed.policy} disables this certificate; send force=true to renew anyway`,
            },
          ],
        },
      );
    }
    const done = renewed.status === "scheduled" ? "scheduled" : "already in progress";
    log.info(`certsched renewal ${done} (v3): ${name}${accountNote(runtime.settings)}`);
    const { status, message, note, confirmedBy, forcedPast, policy } = renewed;
    return json(202, {
      status,
      certificateName: name,
      account,
      message,
      ...(note ? { note } : {}),
      ...(confirmedBy ? { confirmedBy } : {}),
      ...(forcedPast ? { forcedPast } : {}),
      ...(policy ? { forcedPastPolicy: policy } : {}),
    });
  });
}
