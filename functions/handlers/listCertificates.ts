import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getServices } from "../../shared/app/services.js";
import { statusSourcesOf } from "../../shared/app/sources.js";
import { accountSummary } from "../../shared/core/status/accountSummary.js";
import { statusPageQuery } from "../../shared/core/status/statusPage.js";
import { accountParameter, accountsOf } from "../../shared/edge/accountQuery.js";
import { acrossAccounts, errorsPart } from "../../shared/edge/acrossAccounts.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { READER } from "../../shared/edge/auth/roles.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { handle } from "../../shared/edge/handle.js";
import { parseQuery } from "../../shared/edge/parseQuery.js";
import { json } from "../../shared/edge/problem.js";
import { accountStatuses, statusPageOf } from "../../shared/usecases/listStatus.js";

const query = statusPageQuery.extend(accountParameter);

/**
 * GET /api/certificates[?top=1..200][&continuation=...][&status=word,...][&account=NAME]: every
 * certificate certsched knows, with its status (shared/core/status/certificateStatus.ts) and its
 * account, a page at a time in name order (then account order), and one summary line per account
 * (`accounts`: certificates, counts, failed, stuck, notLanded, nextExpiryDays). Without `account`
 * it covers every account; one whose storage cannot be read is an `accountErrors` entry (and its
 * line says `problem`). Reads the app's storage only: listing sends no request to the service.
 */
export async function listCertificates(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER, platformEnv());
    const { account, ...page } = parseQuery(request, query);
    const services = getServices();
    const accounts = accountsOf(services.accounts, account);
    const { parts, accountErrors } = await acrossAccounts(
      accounts,
      async (name) => {
        const runtime = services.forAccount(name);
        return accountStatuses(name, runtime, statusSourcesOf(runtime));
      },
      {
        concurrency: services.forAccount().settings.accountConcurrency,
        invocationId: context.invocationId,
        log: contextLogger(context),
      },
    );
    const list = statusPageOf(
      parts.map((p) => p.value),
      page,
    );
    const failed = new Map(accountErrors.map((e) => [e.account, e.detail]));
    // Every account listed keeps its line, in declaration order; a failed one says why.
    const lines = accounts.map(
      (name) =>
        list.accounts.find((a) => a.name === name) ??
        accountSummary(name, [], { problem: failed.get(name) }),
    );
    return json(200, { ...list, accounts: lines, ...errorsPart(accountErrors) });
  });
}
