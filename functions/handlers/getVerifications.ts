import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getRuntime } from "../../shared/app/services.js";
import { verificationsView } from "../../shared/core/verification/views.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { READER } from "../../shared/edge/auth/roles.js";
import { handle } from "../../shared/edge/handle.js";
import { json } from "../../shared/edge/problem.js";

/** GET /api/verifications: the latest verification of every certificate in the inventory. */
export async function getVerifications(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER, platformEnv());
    const read = await getRuntime().inventory.list();
    return json(200, verificationsView(read));
  });
}
