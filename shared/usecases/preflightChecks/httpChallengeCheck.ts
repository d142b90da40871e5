import {
  type CheckStatus,
  MAX_CHECK_DETAIL,
  type PreflightCheck,
} from "../../core/preflight/preflight.js";
import { redact } from "../../lib/redact/redact.js";
import { boundDetail } from "../../lib/text/boundDetail.js";
import type { CheckContext, CheckOutcome, CheckSubject } from "./checkTypes.js";

/**
 * `http-challenge` (challengeType http): the certificate authority will GET
 * http://{rootDomain}/.well-known/acme-challenge/…, and the renewal fails unless the app itself
 * answers there. Any status is an answer (the app serves 404 until the token is placed); no
 * answer, or a redirect to another host, is `http-challenge-unreachable`.
 */
export async function httpChallengeCheck(
  subject: CheckSubject,
  ctx: CheckContext,
): Promise<CheckOutcome> {
  const outcome = (status: CheckStatus, detail: string, fail = false): CheckOutcome => {
    const check: PreflightCheck = {
      check: "http-challenge",
      status,
      ...(fail ? { reason: "http-challenge-unreachable" as const } : {}),
      detail: boundDetail(redact(detail), MAX_CHECK_DETAIL),
    };
    return { check };
  };
  const domain = subject.rootDomain;
  if (domain.startsWith("*.")) {
    // Not a failure of the app: an http-01 challenge cannot prove a wildcard at all (RFC 8555 8.3).
    return outcome(
      "unknown",
      `${domain} is a wildcard: the http challenge cannot prove a wildcard, it needs the dns challenge`,
    );
  }
  const answer = await ctx.probes.challenge.reach(domain, ctx.signal);
  if (answer.kind === "answered") {
    return outcome("pass", `the app answered ${answer.status} at /.well-known/acme-challenge/`);
  }
  // Cut short by the run (not by the app's silence): nothing was decided.
  if (ctx.signal?.aborted)
    return outcome("unknown", "the check was cancelled before the app answered");
  return outcome("fail", answer.detail, true);
}
