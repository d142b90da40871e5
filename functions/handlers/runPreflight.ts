import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { z } from "zod";
import { platformEnv } from "../../shared/app/config/platform.js";
import { getServices } from "../../shared/app/services.js";
import { accountParameter, accountsOf } from "../../shared/edge/accountQuery.js";
import { acrossAccounts, errorsPart } from "../../shared/edge/acrossAccounts.js";
import { authorize } from "../../shared/edge/auth/authorize.js";
import { OPERATOR } from "../../shared/edge/auth/roles.js";
import { contextLogger } from "../../shared/edge/contextLogger.js";
import { handle } from "../../shared/edge/handle.js";
import { parseQuery } from "../../shared/edge/parseQuery.js";
import { json } from "../../shared/edge/problem.js";
import { readJsonBody } from "../../shared/edge/readBody.js";
import { preflightAcross } from "../../shared/edge/views/preflightView.js";
import { type Problem, ValidationError } from "../../shared/lib/errors.js";
import { preflightAndNotify } from "../../shared/usecases/preflightAndNotify.js";
import { MAX_CERTIFICATE_NAME } from "./getPreflight.js";

/**
 * How long a run started over HTTP may take (ms): under the 230 s Azure's front end waits for an
 * HTTP answer, so the caller gets the results rather than a gateway timeout. Checks still
 * running then stop and are `unknown`.
 */
export const HTTP_PREFLIGHT_DEADLINE_MS = 200_000;

/** Certificates one request may name: a run of every one needs no names. */
export const MAX_NAMED_CERTIFICATES = 100;

const name = z
  .string({ error: "must be a certificate name (a string)" })
  .min(1, { message: "must name a certificate" })
  .max(MAX_CERTIFICATE_NAME, { message: `must be at most ${MAX_CERTIFICATE_NAME} characters` });

const query = z.object({ ...accountParameter, certificate: name.optional() });

const body = z.strictObject(
  {
    certificate: z
      .union(
        [
          name,
          z
            .array(name)
            .min(1, { message: "must name at least one certificate" })
            .max(MAX_NAMED_CERTIFICATES, {
              message: `must name at most ${MAX_NAMED_CERTIFICATES} certificates`,
            }),
        ],
        { error: "must be a certificate name or an array of them" },
      )
      .optional(),
  },
  { error: "must be a JSON object" },
);

/** The names a body asks for; undefined without a body (every certificate). */
async function bodyNames(request: HttpRequest): Promise<string[] | undefined> {
  if (!request.body || request.headers.get("content-length") === "0") return undefined;
  const parsed = body.safeParse(await readJsonBody(request));
  if (parsed.success) {
    const { certificate } = parsed.data;
    // `{}` names none: every certificate, as without a body.
    return typeof certificate === "string" ? [certificate] : certificate;
  }
  const problems: Problem[] = parsed.error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({
          name: key.length > 64 ? `${key.slice(0, 64)}…` : key,
          message: "is not a field of this request (it takes certificate)",
        }))
      : [{ name: issue.path.map(String).join(".") || "(body)", message: issue.message }],
  );
  throw new ValidationError("request", problems);
}

/**
 * POST /api/preflight[?account=NAME][&certificate=NAME], optional body `{"certificate": NAME |
 * [NAME, …]}`: preflight now, every certificate of the inventory of every account (or the
 * account, the certificates named; not only those near their window), within one deadline. The
 * results are stored (the sweep consults them), changes posted to the webhook, and the answer
 * is GET's document (200) with `notFound` (names no account holds) when any. A bad query or
 * body is a 400 naming the field.
 */
export async function runPreflight(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  return handle(context, async () => {
    authorize(request, OPERATOR, platformEnv());
    const { account, certificate } = parseQuery(request, query);
    const fromBody = await bodyNames(request);
    const names =
      certificate === undefined && fromBody === undefined
        ? undefined
        : [...new Set([...(certificate === undefined ? [] : [certificate]), ...(fromBody ?? [])])];
    const services = getServices();
    const { settings } = services.forAccount();
    const signal = AbortSignal.timeout(
      Math.min(HTTP_PREFLIGHT_DEADLINE_MS, settings.sweepDeadlineMs),
    );
    const log = contextLogger(context);
    const { parts, accountErrors } = await acrossAccounts(
      accountsOf(services.accounts, account),
      (one) => preflightAndNotify(services.forAccount(one), log, { scope: "all", names, signal }),
      { concurrency: settings.accountConcurrency, invocationId: context.invocationId, log },
    );
    const notFound = (names ?? []).filter((n) => parts.every((p) => p.value.notFound.includes(n)));
    return json(200, {
      ...preflightAcross(parts.map((p) => ({ account: p.account, value: p.value.results }))),
      ...(notFound.length > 0 ? { notFound } : {}),
      ...errorsPart(accountErrors),
    });
  });
}
