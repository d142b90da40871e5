import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { z } from "zod";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getServices } from "../../shared/app/services.js";
import { statusSourcesOf } from "../../shared/app/sources.js";
import { requiredText } from "../../shared/core/certificate/fields.js";
import { accountNote } from "../../shared/edge/accountNote.js";
import { accountQuery, oneAccount } from "../../shared/edge/accountQuery.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { READER } from "../../shared/edge/auth/roles.js";
import { handle } from "../../shared/edge/handle.js";
import { parseQuery } from "../../shared/edge/parseQuery.js";
import { json } from "../../shared/edge/problem.js";
import { parseOrThrow } from "../../shared/lib/zodProblems.js";
import { certificateDetail } from "../../shared/usecases/certificateDetail.js";

const params = z.object({ name: requiredText() });

/**
 * GET /api/certificates/{name}: the certificate as the service holds it (Get Certificate, as the
 * due list shows records: no password, PFX or private-key links), with `service` (what Get
 * Certificate said), `status` (shared/core/status/certificateStatus.ts) and `history` (the last 30
 * days, at most 50 events). A name the service does not know, or a service that fails, still
 * answers 200 with the status when the inventory or the ledger knows the name; unknown
 * everywhere is a 404 problem. `?account=NAME` says whose certificate (required when more than
 * one account is declared); the answer carries `account`. The host matches the literal route certificates/due first, so a
 * certificate named "due" cannot be read here (use `certsched get due`).
 */
export async function getCertificate(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async (about) => {
    authorize(request, READER, platformEnv());
    const query = parseQuery(request, accountQuery);
    const services = getServices();
    const account = oneAccount(services.accounts, query.account);
    const { name } = parseOrThrow(params, { name: request.params.name }, "route");
    const runtime = services.forAccount(account);
    // A failure's log line names the account (with accounts declared).
    about(accountNote(runtime.settings));
    const detail = await certificateDetail(runtime, statusSourcesOf(runtime), name);
    return json(200, { account, ...detail });
  });
}
