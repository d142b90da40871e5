import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { handle } from "../../shared/api/handle.js";
import { json } from "../../shared/api/problem.js";
import { authorize } from "../../shared/auth/authorize.js";
import { READER } from "../../shared/auth/roles.js";
import { getRuntime } from "../../shared/runtime.js";
import { verificationsView } from "../../shared/verify/verificationViews.js";

/** GET /api/verifications: the latest verification of every certificate in the inventory. */
export async function getVerifications(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, READER);
    const read = await getRuntime().inventory.list();
    return json(200, verificationsView(read));
  });
}
