import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getServices } from "../../shared/app/services.js";
import { accountParam, accountsOf } from "../../shared/edge/accountQuery.js";
import { acrossAccounts, errorsPart } from "../../shared/edge/acrossAccounts.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { OPERATOR } from "../../shared/edge/auth/roles.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { handle } from "../../shared/edge/handle.js";
import { json } from "../../shared/edge/problem.js";
import { verificationRunAcross } from "../../shared/edge/views/verificationsAcross.js";
import { verifyWith } from "../../shared/usecases/verify.js";

/**
 * How long a run started over HTTP may take (ms): under the 230 s Azure's front end waits for an
 * HTTP answer, so the caller gets the results rather than a gateway timeout. Probes still
 * running then stop and count as unreachable.
 */
export const HTTP_VERIFY_DEADLINE_MS = 200_000;

/**
 * POST /api/verifications[?account=NAME]: verify the inventory of every account (or the one
 * named) now, within one deadline; answers the results (each with its `account`), the summed
 * counts, `failed` when any account's run failed, and one line per account (200).
 */
export async function runVerifications(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, OPERATOR, platformEnv());
    // Only `account` is read: these routes never refused other parameters, and still do not.
    const account = accountParam(request.url);
    const services = getServices();
    const { settings } = services.forAccount();
    const signal = AbortSignal.timeout(Math.min(HTTP_VERIFY_DEADLINE_MS, settings.sweepDeadlineMs));
    const log = contextLogger(context);
    const { parts, accountErrors } = await acrossAccounts(
      accountsOf(services.accounts, account),
      async (account) => verifyWith(services.forAccount(account), log, { trigger: "http", signal }),
      { concurrency: settings.accountConcurrency, invocationId: context.invocationId, log },
    );
    return json(200, { ...verificationRunAcross(parts), ...errorsPart(accountErrors) });
  });
}
