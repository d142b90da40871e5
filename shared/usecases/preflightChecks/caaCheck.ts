import type { CaaRecord } from "../../core/ports/preflightProbes.js";
import {
  type CaaDecision,
  caaNames,
  caaStartName,
  decideCaa,
  issuerDomain,
} from "../../core/preflight/caa.js";
import { MAX_CHECK_DETAIL, type PreflightCheck } from "../../core/preflight/preflight.js";
import { redact } from "../../lib/redact/redact.js";
import { boundDetail, boundWithNote } from "../../lib/text/boundDetail.js";
import type { CheckContext, CheckOutcome, CheckSubject } from "./checkTypes.js";
import { detailList, detailValue } from "./dnsDetail.js";

/**
 * The `caa` check: climbs from the domain towards the root (core/preflight/caa.ts names the
 * steps) until a name has CAA records, and asks whether they let one of the CA identifiers
 * issue. An undecided lookup on the way makes the check `unknown`: a set above it could not
 * be the relevant one if that name had records of its own.
 */
export async function caaCheck(subject: CheckSubject, ctx: CheckContext): Promise<CheckOutcome> {
  const domain = subject.rootDomain;
  const ids = ctx.settings.caIdentifiers;
  const names = caaNames(domain);
  if (names.length === 0) return outcome("unknown", `not a domain name: ${domain}`);
  let found: { name: string; records: readonly CaaRecord[] } | undefined;
  for (const name of names) {
    const answer = await ctx.probes.dns.caa(name, ctx.signal);
    if (answer.kind === "unknown") {
      return outcome("unknown", `CAA at ${name} could not be read: ${answer.detail}`);
    }
    if (answer.kind === "records" && answer.records.length > 0) {
      found = { name, records: answer.records };
      break;
    }
  }
  const decision = decideCaa(domain, found?.records ?? [], ids);
  const at = found?.name ?? caaStartName(domain);
  if (decision.allowed) return outcome("pass", passDetail(decision, at));
  return outcome("fail", failDetail(decision, at, ids));
}

function passDetail(decision: CaaDecision & { allowed: true }, at: string): string {
  switch (decision.why) {
    case "no-caa":
      return `no CAA record at or above ${at}: any CA may issue`;
    case "no-issue-tags":
      return `CAA at ${at} has no issue tags for this name: any CA may issue`;
    case "allowed":
      return `CAA at ${at} allows ${detailValue(issuerDomain(decision.record.value))} (${decision.property})`;
  }
}

function failDetail(
  decision: CaaDecision & { allowed: false },
  at: string,
  ids: readonly string[],
): string {
  const wanted = ids.join(" or ");
  const note = `${wanted || "no CA identifier"} ${ids.length > 1 ? "are" : "is"} not allowed`;
  if (decision.why === "critical-unknown") {
    const tags = [...new Set(decision.records.map((r) => r.tag))];
    return boundWithNote(
      `CAA at ${at} has a critical tag certsched does not understand (${detailList(tags)})`,
      `no CA may issue; ${note}`,
      MAX_CHECK_DETAIL,
    );
  }
  const issuers = [...new Set(decision.records.map((r) => issuerDomain(r.value)))].filter(
    (issuer) => issuer !== "",
  );
  const allows =
    issuers.length === 0
      ? `allows no CA (${decision.property} ";")`
      : `allows only ${detailList(issuers)} (${decision.property})`;
  return boundWithNote(`CAA at ${at} ${allows}`, note, MAX_CHECK_DETAIL);
}

function outcome(status: PreflightCheck["status"], detail: string): CheckOutcome {
  // Redacted before it is cut, so no cut can leave half a secret that redaction misses.
  const line = boundDetail(redact(detail), MAX_CHECK_DETAIL);
  return {
    check: {
      check: "caa",
      status,
      ...(status === "fail" ? { reason: "caa-forbids" as const } : {}),
      detail: line,
    },
  };
}
