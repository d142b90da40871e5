import {
  checkDetail,
  inCheckOrder,
  type PreflightCheck,
  type PreflightResult,
  resultStatus,
} from "../../core/preflight/preflight.js";
import { applicableChecks, type PreflightCandidate } from "../../core/preflight/subject.js";
import { ensureError } from "../../lib/errors.js";
import type { CheckContext, CheckOutcome, PreflightCheckFunctions } from "./checkTypes.js";

/**
 * Runs the checks that apply to one certificate, at once where they do not depend on each other
 * (the delegation needs the zone; access needs every ARM answer). A check that throws is
 * `unknown`, never the end of the run.
 */
export async function checkCertificate(
  account: string,
  candidate: PreflightCandidate,
  ctx: CheckContext,
  checks: PreflightCheckFunctions,
  at: Date,
): Promise<PreflightResult> {
  const subject = candidate.subject;
  if (!subject) {
    const detail = "the service names no rootDomain for this certificate: nothing can be checked";
    const unknown: PreflightCheck[] = [
      { check: "caa", status: "unknown", detail },
      { check: "access", status: "unknown", detail },
    ];
    return {
      account,
      certificateName: candidate.certificateName,
      rootDomain: null,
      status: resultStatus(unknown),
      checks: unknown,
      at,
    };
  }
  const guarded = async <T extends CheckOutcome>(
    name: PreflightCheck["check"],
    run: () => Promise<T>,
  ): Promise<T | CheckOutcome> => {
    try {
      return await run();
    } catch (error) {
      const detail = checkDetail(`could not check: ${ensureError(error).message}`);
      return { check: { check: name, status: "unknown", detail } };
    }
  };
  const applicable = applicableChecks(subject);
  const runs: Promise<CheckOutcome[]>[] = [];
  if (applicable.includes("caa"))
    runs.push(guarded("caa", () => checks.caa(subject, ctx)).then((o) => [o]));
  if (applicable.includes("dns-zone")) {
    runs.push(
      (async () => {
        const zone = await guarded("dns-zone", () => checks.dnsZone(subject, ctx));
        const found = "zone" in zone ? zone.zone : undefined;
        if (zone.check.status !== "pass" || !found) return [zone];
        return [
          zone,
          await guarded("dns-delegation", () => checks.delegation(subject, ctx, found)),
        ];
      })(),
    );
  }
  if (applicable.includes("app-binding")) {
    runs.push(guarded("app-binding", () => checks.appBinding(subject, ctx)).then((o) => [o]));
  }
  if (applicable.includes("http-challenge")) {
    runs.push(guarded("http-challenge", () => checks.httpChallenge(subject, ctx)).then((o) => [o]));
  }
  const outcomes = (await Promise.all(runs)).flat();
  const access = checks.access(outcomes);
  const all = inCheckOrder([...outcomes, access].map((o) => o.check));
  return {
    account,
    certificateName: candidate.certificateName,
    rootDomain: subject.rootDomain,
    status: resultStatus(all),
    checks: all,
    at,
  };
}
