import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { z } from "zod";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getServices } from "../../shared/app/services.js";
import { requesterOf } from "../../shared/core/renewal/requester.js";
import { issuanceLine, issuanceView } from "../../shared/core/transparency/issuanceView.js";
import { accountNote } from "../../shared/edge/accountNote.js";
import { accountParameter, oneAccount } from "../../shared/edge/accountQuery.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { callerOf } from "../../shared/edge/auth/callerOf.js";
import { OPERATOR } from "../../shared/edge/auth/roles.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { handle } from "../../shared/edge/handle.js";
import { parseQuery } from "../../shared/edge/parseQuery.js";
import { json, problem } from "../../shared/edge/problem.js";
import { readJsonBody } from "../../shared/edge/readBody.js";
import { parseOrThrow } from "../../shared/lib/zodProblems.js";
import { acknowledgeIssuance as acknowledge } from "../../shared/usecases/acknowledgeIssuance.js";

const ackQuery = z.object(accountParameter);
const ackBody = z
  .object({ reason: z.string({ error: "must be a string: why this issuance is no concern" }) })
  .strict();

/**
 * POST /api/issuances/{id}/ack[?account=NAME] with {"reason": "..."}: acknowledges an unexpected
 * issuance of the account (`account` is required when more than one is declared), recorded in
 * the history with who asked. 404 when the account keeps no such issuance; 409 when it is
 * expected or pending (nothing to acknowledge); 200 again for one acknowledged before, its first
 * acknowledgement kept.
 */
export async function acknowledgeIssuance(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async (about) => {
    authorize(request, OPERATOR, platformEnv());
    const query = parseQuery(request, ackQuery);
    const services = getServices();
    const account = oneAccount(services.accounts, query.account);
    const runtime = services.forAccount(account);
    const note = accountNote(runtime.settings);
    about(note);
    const { reason } = parseOrThrow(ackBody, await readJsonBody(request), "acknowledgement");
    const { by } = requesterOf(callerOf(request, platformEnv()));
    const id = request.params.id ?? "";
    const done = await acknowledge(runtime, { id, reason, by, trigger: "http" });
    const log = contextLogger(context);
    if (done.status === "not-found") {
      return problem(
        404,
        "ISSUANCE_NOT_FOUND",
        "No such issuance",
        `account "${account}" keeps no issuance ${id}: GET /api/issuances lists them`,
      );
    }
    if (done.status === "not-unexpected") {
      return problem(
        409,
        "ISSUANCE_NOT_UNEXPECTED",
        "Nothing to acknowledge",
        `${issuanceLine(done.seen)} is ${done.state}: only an unexpected issuance is acknowledged`,
      );
    }
    if (done.status === "acknowledged") {
      log.info(`certsched ct ${issuanceLine(done.seen)} acknowledged by ${by}: ${reason}${note}`);
      if (done.historyProblem) {
        log.warn(
          `certsched could not record the acknowledgement in the history: ${done.historyProblem}${note}`,
        );
      }
    }
    const issuance = issuanceView(done.seen, runtime.now());
    return json(200, { status: done.status, account, issuance });
  });
}
