import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getServices } from "../../shared/app/services.js";
import { accountQuery, accountsOf } from "../../shared/edge/accountQuery.js";
import { acrossAccounts, errorsPart } from "../../shared/edge/acrossAccounts.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { READER } from "../../shared/edge/auth/roles.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { handle } from "../../shared/edge/handle.js";
import { parseQuery } from "../../shared/edge/parseQuery.js";
import { json } from "../../shared/edge/problem.js";

/**
 * GET /api/connectivity[?account=NAME]: the public test operation (spec 4.5), with each
 * account's own credentials. One account: `{ ok, message, account }` as before (a failure is
 * its problem). Several: `{ ok, accounts: [{ account, ok, message }], accountErrors? }`, `ok`
 * only when every account answered; when none did, the first one's problem.
 */
export async function testConnectivity(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER, platformEnv());
    const query = parseQuery(request, accountQuery);
    const services = getServices();
    const accounts = accountsOf(services.accounts, query.account);
    const { parts, accountErrors } = await acrossAccounts(
      accounts,
      async (name) => services.forAccount(name).client.test(),
      {
        concurrency: services.forAccount().settings.accountConcurrency,
        invocationId: context.invocationId,
        log: contextLogger(context),
      },
    );
    const [only] = parts;
    if (accounts.length === 1 && only) {
      return json(200, { ok: true, message: only.value, account: only.account });
    }
    return json(200, {
      ok: accountErrors.length === 0,
      accounts: parts.map((p) => ({ account: p.account, ok: true, message: p.value })),
      ...errorsPart(accountErrors),
    });
  });
}
