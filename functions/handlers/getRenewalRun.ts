import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { z } from "zod";
import { contextLogger } from "../../shared/api/contextLogger.js";
import { handle } from "../../shared/api/handle.js";
import { noQuery, parseQuery } from "../../shared/api/parseQuery.js";
import { json, problem } from "../../shared/api/problem.js";
import { authorize } from "../../shared/auth/authorize.js";
import { READER } from "../../shared/auth/roles.js";
import { runIdSchema } from "../../shared/runs/runMessage.js";
import { runsOf } from "../../shared/runs/runs.js";
import { runView } from "../../shared/runs/runView.js";
import { settleRun } from "../../shared/runs/settleRun.js";
import { getRuntime } from "../../shared/runtime.js";
import { parseOrThrow } from "../../shared/schemas/index.js";

const params = z.object({ runId: runIdSchema });

/** GET /api/renewals/{runId}: a queued run (queued, running, succeeded, failed; docs/runs.md). */
export async function getRenewalRun(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER);
    parseQuery(request, noQuery);
    const { runId } = parseOrThrow(params, { runId: request.params.runId }, "route");
    const runtime = getRuntime();
    const { store, queue } = runsOf(runtime);
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
    const run = await settleRun(read, {
      store,
      queue,
      log: contextLogger(context),
      now: runtime.now(),
    });
    return json(200, runView(run));
  });
}
