import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getServices } from "../../shared/app/services.js";
import { verificationsView } from "../../shared/core/verification/views.js";
import { accountParam, accountsOf } from "../../shared/edge/accountQuery.js";
import { acrossAccounts, errorsPart } from "../../shared/edge/acrossAccounts.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { READER } from "../../shared/edge/auth/roles.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { handle } from "../../shared/edge/handle.js";
import { json } from "../../shared/edge/problem.js";
import { verificationsAcross } from "../../shared/edge/views/verificationsAcross.js";

/**
 * GET /api/verifications[?account=NAME]: the latest verification of every certificate in the
 * inventory of every account (or the one named), each result with its `account`, and one line
 * per account in `accounts`.
 */
export async function getVerifications(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER, platformEnv());
    // Only `account` is read: these routes never refused other parameters, and still do not.
    const account = accountParam(request.url);
    const services = getServices();
    const { parts, accountErrors } = await acrossAccounts(
      accountsOf(services.accounts, account),
      async (account) => verificationsView(await services.forAccount(account).inventory.list()),
      {
        concurrency: services.forAccount().settings.accountConcurrency,
        invocationId: context.invocationId,
        log: contextLogger(context),
      },
    );
    return json(200, { ...verificationsAcross(parts), ...errorsPart(accountErrors) });
  });
}
