import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { z } from "zod";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getServices } from "../../shared/app/services.js";
import { requesterOf } from "../../shared/core/renewal/requester.js";
import { IDEMPOTENCY_HEADER } from "../../shared/core/runs/idempotencyKey.js";
import { isFinished, type Run } from "../../shared/core/runs/run.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { callerOf } from "../../shared/edge/auth/callerOf.js";
import { OPERATOR } from "../../shared/edge/auth/roles.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { handle } from "../../shared/edge/handle.js";
import { idempotencyKeyOf } from "../../shared/edge/idempotencyKey.js";
import { parseQuery } from "../../shared/edge/parseQuery.js";
import { json, problem } from "../../shared/edge/problem.js";
import { runLocation, runView } from "../../shared/edge/views/runView.js";
import { startRun } from "../../shared/usecases/startRun.js";
import { readRun } from "../../shared/usecases/steps/settleRun.js";
import { MAX_WAIT_SECONDS, waitForRun } from "../../shared/usecases/waitForRun.js";

const query = z.object({
  dryRun: z
    .enum(["true", "false"], { error: 'must be "true" or "false"' })
    .optional()
    .transform((v) => (v === undefined ? undefined : v === "true")),
  force: z
    .enum(["true", "false"], { error: 'must be "true" or "false"' })
    .optional()
    .transform((v) => v === "true"),
  wait: z
    .string()
    .regex(/^\d{1,3}$/, {
      message: `must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}`,
    })
    .transform(Number)
    .refine((n) => n <= MAX_WAIT_SECONDS, {
      message: `must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS} (the platform cuts a request at 230 s)`,
    })
    .optional(),
});

/** A fanned-out run's parts as queued (just accepted, or when they cannot be read now). */
function queuedParts(run: Run): Run[] {
  return (run.parts ?? []).map((p) => ({
    ...run,
    runId: p.runId,
    account: p.account,
    parentRunId: run.runId,
    parts: undefined,
    state: "queued",
    attempts: 0,
  }));
}

/**
 * POST /api/renewals[?dryRun=true][&force=true][&wait=N]: queues a renewal sweep (docs/runs.md) and answers
 * 202 with the run and `Location: /api/renewals/{runId}`; the queue trigger (runQueuedRenewals)
 * sweeps. With `wait`, answers 200 with the finished run when it ends within N seconds. An
 * Idempotency-Key repeats the run its first request started (24 h).
 */
export async function runRenewals(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  const arrived = Date.now();
  return handle(context, async () => {
    authorize(request, OPERATOR, platformEnv());
    const caller = callerOf(request, platformEnv());
    const { dryRun, wait, force } = parseQuery(request, query);
    const keyHash = idempotencyKeyOf(request, caller);
    const services = getServices();
    const runtime = services.forAccount();
    const { store, queue } = runtime.runs;
    const log = contextLogger(context);
    const result = await startRun(store, queue, log, {
      dryRun: dryRun ?? runtime.settings.dryRun,
      ...(force ? { force: true } : {}),
      requestedBy: requesterOf(caller).by,
      keyHash,
      now: runtime.now(),
      // Declared accounts: one part per account, each swept by its own message.
      accounts: runtime.settings.accountsDeclared ? services.accounts : undefined,
    });
    if (result.kind === "key-reused") {
      return problem(
        422,
        "IDEMPOTENCY_KEY_REUSED",
        "Idempotency-Key already used",
        `this ${IDEMPOTENCY_HEADER} started run ${result.runId} for another request (dryRun or force differs); use a new key`,
        {
          errors: [
            { name: IDEMPOTENCY_HEADER, message: "was used for a different request within 24 h" },
          ],
        },
      );
    }
    if (result.kind === "key-in-flight") {
      return problem(
        409,
        "IDEMPOTENCY_KEY_IN_FLIGHT",
        "Request with this Idempotency-Key in progress",
        `the first request with this ${IDEMPOTENCY_HEADER} (run ${result.runId}) is still being accepted; retry in a moment`,
        { headers: { "retry-after": "1" } },
      );
    }
    const derived = { get: async (id: string) => (await readRun(store, id))?.run };
    const run = wait ? await waitForRun(derived, result.run, wait, arrived) : result.run;
    const parts =
      run.parts && (wait || result.repeated)
        ? await readRun(store, run.runId)
            .then((read) => read?.parts)
            .catch(() => undefined)
        : undefined;
    const response = json(
      isFinished(run.state) ? 200 : 202,
      runView(run, parts ?? queuedParts(run)),
    );
    return { ...response, headers: { ...response.headers, location: runLocation(run.runId) } };
  });
}
