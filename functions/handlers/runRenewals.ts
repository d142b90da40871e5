import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { z } from "zod";
import { contextLogger } from "../../shared/api/contextLogger.js";
import { handle } from "../../shared/api/handle.js";
import { parseQuery } from "../../shared/api/parseQuery.js";
import { json } from "../../shared/api/problem.js";
import { sweepWith } from "../../shared/api/sweepWith.js";
import { authorize } from "../../shared/auth/authorize.js";
import { OPERATOR } from "../../shared/auth/roles.js";
import { getRuntime } from "../../shared/runtime.js";

const query = z.object({
  dryRun: z
    .enum(["true", "false"], { error: 'must be "true" or "false"' })
    .optional()
    .transform((v) => (v === undefined ? undefined : v === "true")),
});

/** POST /api/renewals[?dryRun=true]: the renewal sweep, now; answers with its summary. */
export async function runRenewals(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, OPERATOR);
    const { dryRun } = parseQuery(request, query);
    const summary = await sweepWith(getRuntime(), contextLogger(context), {
      dryRun,
      traceContext: context.traceContext,
      trigger: "http",
    });
    return json(200, summary);
  });
}
