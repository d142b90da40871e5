import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getServices } from "../../shared/app/services.js";
import { certificateView } from "../../shared/core/certificate/certificateView.js";
import { fromServiceRecord, remember } from "../../shared/core/inventory/fromRecords.js";
import { accountQuery, accountsOf } from "../../shared/edge/accountQuery.js";
import { acrossAccounts, errorsPart } from "../../shared/edge/acrossAccounts.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { READER } from "../../shared/edge/auth/roles.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { handle } from "../../shared/edge/handle.js";
import { parseQuery } from "../../shared/edge/parseQuery.js";
import { json } from "../../shared/edge/problem.js";

/**
 * GET /api/certificates/due[?account=NAME]: certificates expiring within 20 days (spec 4.3), of
 * every account (or the one named), each with its `account`. An account whose list fails is an
 * `accountErrors` entry; when every account's fails, the answer is the first one's problem.
 */
export async function listDueCertificates(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER, platformEnv());
    const query = parseQuery(request, accountQuery);
    const services = getServices();
    const log = contextLogger(context);
    const { parts, accountErrors } = await acrossAccounts(
      accountsOf(services.accounts, query.account),
      async (account) => {
        const runtime = services.forAccount(account);
        const { certificates, rejected } = await runtime.client.listDue();
        const now = runtime.now();
        // Kept as a sweep's list is: what is due is what renewals will need of the
        // request budget, which reads may never take. A failure is a warning, never the answer's.
        await remember(
          runtime,
          log,
          certificates.map((c) => fromServiceRecord(c, "due-list", now)),
        );
        return {
          certificates: certificates.map((c) => ({ ...certificateView(c, now), account })),
          rejected: rejected.map((r) => ({ ...r, account })),
        };
      },
      {
        concurrency: services.forAccount().settings.accountConcurrency,
        invocationId: context.invocationId,
        log,
      },
    );
    const rejected = parts.flatMap((p) => p.value.rejected);
    return json(200, {
      certificates: parts.flatMap((p) => p.value.certificates),
      ...(rejected.length > 0 ? { rejected } : {}),
      ...errorsPart(accountErrors),
    });
  });
}
