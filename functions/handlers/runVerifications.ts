import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { contextLogger } from "../../shared/api/contextLogger.js";
import { handle } from "../../shared/api/handle.js";
import { json } from "../../shared/api/problem.js";
import { verifyWith } from "../../shared/api/verifyWith.js";
import { authorize } from "../../shared/auth/authorize.js";
import { OPERATOR } from "../../shared/auth/roles.js";
import { getRuntime } from "../../shared/runtime.js";

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
    authorize(request, OPERATOR);
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
