import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getRuntime } from "../../shared/app/services.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { OPERATOR } from "../../shared/edge/auth/roles.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { handle } from "../../shared/edge/handle.js";
import { json } from "../../shared/edge/problem.js";
import { verifyWith } from "../../shared/usecases/verify.js";

/**
 * How long a run started over HTTP may take (ms): under the 230 s Azure's front end waits for an
 * HTTP answer, so the caller gets the results rather than a gateway timeout. Probes still
 * running then stop and count as unreachable.
 */
export const HTTP_VERIFY_DEADLINE_MS = 200_000;

/** POST /api/verifications: verify the inventory now; answers the results and counts (200). */
export async function runVerifications(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, OPERATOR, platformEnv());
    const runtime = getRuntime();
    const verification = await verifyWith(runtime, contextLogger(context), {
      trigger: "http",
      signal: AbortSignal.timeout(
        Math.min(HTTP_VERIFY_DEADLINE_MS, runtime.settings.sweepDeadlineMs),
      ),
    });
    return json(200, verification);
  });
}
