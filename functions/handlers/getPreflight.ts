import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { z } from "zod";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getServices } from "../../shared/app/services.js";
import { PREFLIGHT_STATUSES } from "../../shared/core/preflight/preflight.js";
import { accountParameter, accountsOf } from "../../shared/edge/accountQuery.js";
import { acrossAccounts, errorsPart } from "../../shared/edge/acrossAccounts.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { READER } from "../../shared/edge/auth/roles.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { handle } from "../../shared/edge/handle.js";
import { parseQuery } from "../../shared/edge/parseQuery.js";
import { json } from "../../shared/edge/problem.js";
import { preflightAcross, storedResults } from "../../shared/edge/views/preflightView.js";

/** The longest certificate name a filter takes (the service's names are far shorter). */
export const MAX_CERTIFICATE_NAME = 256;

const query = z.object({
  ...accountParameter,
  certificate: z
    .string()
    .min(1, { message: "must name a certificate" })
    .max(MAX_CERTIFICATE_NAME, {
      message: `must be at most ${MAX_CERTIFICATE_NAME} characters`,
    })
    .optional(),
  status: z
    .enum(PREFLIGHT_STATUSES, { error: `must be one of ${PREFLIGHT_STATUSES.join(", ")}` })
    .optional(),
});

/**
 * GET /api/preflight[?account=NAME][&certificate=NAME][&status=ready|will-fail|unknown]: the last
 * preflight stored with each certificate of the inventory of every account (or the one named),
 * as `certsched preflight --json` writes results, each with `at`. Nothing is checked now (POST
 * runs preflight); a certificate never checked is not listed. One account that cannot be read
 * is one entry of `accountErrors`.
 */
export async function getPreflight(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER, platformEnv());
    const { account, certificate, status } = parseQuery(request, query);
    const services = getServices();
    const { parts, accountErrors } = await acrossAccounts(
      accountsOf(services.accounts, account),
      async (name) => storedResults(name, (await services.forAccount(name).inventory.list()).items),
      {
        concurrency: services.forAccount().settings.accountConcurrency,
        invocationId: context.invocationId,
        log: contextLogger(context),
      },
    );
    return json(200, {
      ...preflightAcross(parts, { certificate, status }),
      ...errorsPart(accountErrors),
    });
  });
}
