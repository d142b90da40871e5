import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { z } from "zod";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getServices } from "../../shared/app/services.js";
import { accountParameter, accountsOf } from "../../shared/edge/accountQuery.js";
import { acrossAccounts, errorsPart } from "../../shared/edge/acrossAccounts.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { READER } from "../../shared/edge/auth/roles.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { handle } from "../../shared/edge/handle.js";
import { parseQuery } from "../../shared/edge/parseQuery.js";
import { json } from "../../shared/edge/problem.js";
import {
  ISSUANCE_STATES,
  issuanceCounts,
  listIssuances as list,
  parseSince,
  SINCE_RULE,
} from "../../shared/usecases/listIssuances.js";

const query = (now: Date) =>
  z.object({
    ...accountParameter,
    since: z
      .string()
      .optional()
      .transform((text, ctx) => {
        if (text === undefined) return undefined;
        const at = parseSince(text, now);
        if (!at) ctx.addIssue({ code: "custom", message: SINCE_RULE });
        return at;
      }),
    state: z
      .enum(ISSUANCE_STATES, { error: `must be one of ${ISSUANCE_STATES.join(", ")}` })
      .optional(),
  });

/**
 * GET /api/issuances[?account=NAME][&since=DATE][&state=expected|pending|unexpected|acknowledged]:
 * the Certificate Transparency issuances certsched keeps for every account (or the one named),
 * newest first, as IssuanceView; `counts` of those listed per state; `warnings` the rows that
 * could not be read. One account that cannot be read is one entry of `accountErrors`.
 */
export async function listIssuances(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER, platformEnv());
    const services = getServices();
    const { account, since, state } = parseQuery(request, query(services.app.now()));
    const { parts, accountErrors } = await acrossAccounts(
      accountsOf(services.accounts, account),
      (name) => list(services.forAccount(name), { since, state }),
      {
        concurrency: services.forAccount().settings.accountConcurrency,
        invocationId: context.invocationId,
        log: contextLogger(context),
      },
    );
    const many = parts.length > 1;
    const issuances = parts
      .flatMap((p) => p.value.issuances)
      .sort((a, b) => Date.parse(b.firstSeenAt) - Date.parse(a.firstSeenAt));
    const warnings = parts.flatMap((p) =>
      p.value.warnings.map((w) => (many ? `account ${p.account}: ${w}` : w)),
    );
    return json(200, {
      issuances,
      counts: issuanceCounts(issuances),
      ...(warnings.length > 0 ? { warnings } : {}),
      ...errorsPart(accountErrors),
    });
  });
}
