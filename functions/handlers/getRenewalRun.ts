import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { z } from "zod";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getAccountPorts } from "../../shared/app/services.js";
import { runIdSchema } from "../../shared/core/runs/runMessage.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { READER } from "../../shared/edge/auth/roles.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { handle } from "../../shared/edge/handle.js";
import { noQuery, parseQuery } from "../../shared/edge/parseQuery.js";
import { json, problem } from "../../shared/edge/problem.js";
import { runView } from "../../shared/edge/views/runView.js";
import { parseOrThrow } from "../../shared/lib/zodProblems.js";
import { settleParent, settleRun } from "../../shared/usecases/steps/settleRun.js";

const params = z.object({ runId: runIdSchema });

/** GET /api/renewals/{runId}: a queued run (queued, running, succeeded, failed; docs/runs.md). */
export async function getRenewalRun(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER, platformEnv());
    parseQuery(request, noQuery);
    const { runId } = parseOrThrow(params, { runId: request.params.runId }, "route");
    const runtime = getAccountPorts();
    const { store, queue } = runtime.runs;
    const read = await store.get(runId);
    if (!read) {
      return problem(
        404,
        "RUN_NOT_FOUND",
        "No such run",
        `no run has the id ${runId}: runs are started by POST /api/renewals, which answers with their Location`,
      );
    }
    // A run that can never finish by itself (its message lost, its deliveries spent) is moved
    // on by whoever reads it: sent again once, or failed with the cause.
    const ctx = { store, queue, log: contextLogger(context), now: runtime.now() };
    // A run over several accounts: every part settled, its state derived from theirs.
    if (read.parts) {
      const { run, parts } = await settleParent(read, ctx);
      return json(200, runView(run, parts));
    }
    return json(200, runView(await settleRun(read, ctx)));
  });
}
