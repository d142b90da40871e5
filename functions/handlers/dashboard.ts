import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getServices } from "../../shared/app/services.js";
import { dashboardSourcesOf } from "../../shared/app/sources.js";
import { accountsOf } from "../../shared/edge/accountQuery.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { READER } from "../../shared/edge/auth/roles.js";
import { dashboardQuery, dashboardResponse } from "../../shared/edge/dashboard/dashboardPage.js";
import { handle } from "../../shared/edge/handle.js";
import { parseQuery } from "../../shared/edge/parseQuery.js";
import { dashboardAcross } from "../../shared/usecases/dashboard.js";

/**
 * GET /api/dashboard[?status=word][&account=NAME]: one HTML page with every certificate of the
 * inventory, its status, days left and last renewal and verification, the last and next run
 * (docs/dashboard.md). With several accounts every account's certificates, an
 * account column, a summary line per account and `?account=` to show one account's.
 */
export async function dashboard(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    const platform = platformEnv();
    authorize(request, READER, platform);
    const query = parseQuery(request, dashboardQuery);
    const services = getServices();
    // An unknown name is a 400 naming `account`; the page still reads every account (the
    // summary lines are the way to the others).
    accountsOf(services.accounts, query.account);
    const parts = services.accounts.map((account) => {
      const runtime = services.forAccount(account);
      return { account, ports: runtime, sources: dashboardSourcesOf(runtime) };
    });
    // The host's own settings for the timer (it reads them itself; they are not certsched's).
    const page = await dashboardAcross(
      parts,
      { schedule: platform.CERTSCHED_RENEWAL_SCHEDULE, timeZone: platform.WEBSITE_TIME_ZONE },
      services.forAccount().settings.accountConcurrency,
    );
    return dashboardResponse(page, query, request.url);
  });
}
