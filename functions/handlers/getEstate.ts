import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { z } from "zod";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getServices } from "../../shared/app/services.js";
import { MAX_EXPIRING_DAYS, MIN_EXPIRING_DAYS } from "../../shared/core/estate/estateSettings.js";
import { estateView } from "../../shared/core/estate/estateView.js";
import { accountParameter, accountsOf } from "../../shared/edge/accountQuery.js";
import { acrossAccounts, errorsPart } from "../../shared/edge/acrossAccounts.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { READER } from "../../shared/edge/auth/roles.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { handle } from "../../shared/edge/handle.js";
import { parseQuery } from "../../shared/edge/parseQuery.js";
import { json } from "../../shared/edge/problem.js";
import { discoverEstate } from "../../shared/usecases/estate/discoverEstate.js";

export const EXPIRING_RULE = `must be a whole number of days from ${MIN_EXPIRING_DAYS} to ${MAX_EXPIRING_DAYS}`;

const query = z.object({
  ...accountParameter,
  expiring: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return undefined;
      const days = /^\d{1,3}$/.test(text) ? Number(text) : Number.NaN;
      if (!(days >= MIN_EXPIRING_DAYS && days <= MAX_EXPIRING_DAYS)) {
        ctx.addIssue({ code: "custom", message: EXPIRING_RULE });
      }
      return days;
    }),
});

/**
 * GET /api/estate[?account=NAME][&expiring=DAYS]: discovers now, for every account (or the one
 * named), every certificate its identity can see and whether certsched keeps it, gaps first
 * (EstateView, with the create request certsched would send for each unmanaged one). Nothing
 * is kept or announced: the timer does that. One account that cannot be read is one entry of
 * `accountErrors`.
 */
export async function getEstate(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER, platformEnv());
    const services = getServices();
    const { account, expiring } = parseQuery(request, query);
    const log = contextLogger(context);
    const { parts, accountErrors } = await acrossAccounts(
      accountsOf(services.accounts, account),
      async (name) => {
        const run = await discoverEstate(services.forAccount(name), log, {
          trigger: "http",
          keep: false,
          expiringDays: expiring,
        });
        return estateView(run.report);
      },
      {
        concurrency: services.forAccount().settings.accountConcurrency,
        invocationId: context.invocationId,
        log,
      },
    );
    return json(200, { estates: parts.map((p) => p.value), ...errorsPart(accountErrors) });
  });
}
