import {
  app,
  type HttpRequest,
  type HttpResponseInit,
  type InvocationContext,
} from "@azure/functions";
import { z } from "zod";
import { contextLogger } from "../shared/api/contextLogger.js";
import { handle } from "../shared/api/handle.js";
import { noQuery, parseQuery } from "../shared/api/parseQuery.js";
import { json } from "../shared/api/problem.js";
import { authorize } from "../shared/auth/authorize.js";
import { OPERATOR } from "../shared/auth/roles.js";
import { getRuntime } from "../shared/runtime.js";
import { parseOrThrow, requiredText } from "../shared/schemas/index.js";
import { renewByName } from "../shared/service/renewByName.js";

const params = z.object({ name: requiredText() });

/** POST /api/certificates/{name}/renew: schedules renewal by name (spec 4.2, v3). */
export async function renewCertificate(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, OPERATOR);
    parseQuery(request, noQuery);
    const { name } = parseOrThrow(params, { name: request.params.name }, "route");
    // Get Certificate first: a key-vault certificate's renewal then carries the vault token.
    const { message } = await renewByName(getRuntime().client, name, contextLogger(context));
    contextLogger(context).info(`certsched renewal scheduled (v3): ${name}`);
    return json(202, { status: "scheduled", certificateName: name, message });
  });
}

app.http("renewCertificate", {
  methods: ["POST"],
  authLevel: "function",
  route: "certificates/{name}/renew",
  handler: renewCertificate,
});
