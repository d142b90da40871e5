import type { ArmAnswer } from "../../core/ports/preflightProbes.js";
import { MAX_CHECK_DETAIL, type PreflightCheck } from "../../core/preflight/preflight.js";
import { redact } from "../../lib/redact/redact.js";
import { boundDetail } from "../../lib/text/boundDetail.js";
import type { CheckContext, CheckOutcome, CheckSubject } from "./checkTypes.js";

/**
 * `dns-zone`: the DNS zone the service will write the challenge into exists in the
 * resource group the record names. The service takes the zone named like the domain, or its
 * closest parent: so does this check, and the zone it finds is what `dns-delegation` compares.
 */

/** The zone found: its name as asked and its name servers in ARM. */
export interface FoundZone {
  readonly name: string;
  readonly nameServers: readonly string[];
}

export type DnsZoneOutcome = CheckOutcome & { readonly zone?: FoundZone | undefined };

/** Most zone names asked for one domain (the domain and its closest parents). */
export const MAX_ZONE_NAMES = 10;

const detail = (text: string) => boundDetail(redact(text), MAX_CHECK_DETAIL);

/**
 * The names a zone for `rootDomain` may have, closest first: the domain (a wildcard's `*.`
 * removed), then each parent down to two labels, never above (a zone is never a bare TLD).
 */
export function zoneCandidates(rootDomain: string): string[] {
  const labels = rootDomain.replace(/^\*\./, "").replace(/\.$/, "").toLowerCase().split(".");
  const names: string[] = [];
  for (let i = 0; i === 0 || labels.length - i >= 2; i++) {
    names.push(labels.slice(i).join("."));
    if (names.length >= MAX_ZONE_NAMES) break;
  }
  return names;
}

function check(status: PreflightCheck["status"], text: string): PreflightCheck {
  return { check: "dns-zone", status, detail: detail(text) };
}

export async function dnsZoneCheck(
  subject: CheckSubject,
  ctx: CheckContext,
): Promise<DnsZoneOutcome> {
  const subscription = subject.cloudSubscriptionId?.trim();
  const group = subject.dnsZoneResourceGroup?.trim();
  if (!subscription || !group) {
    const field = !subscription ? "cloudSubscriptionId" : "dnsZoneResourceGroup";
    return {
      check: check(
        "unknown",
        `the record names no ${field}: certsched cannot tell which DNS zone the service will use`,
      ),
    };
  }
  const tried: string[] = [];
  let answered = false;
  for (const name of zoneCandidates(subject.rootDomain)) {
    tried.push(name);
    const answer: ArmAnswer<{ readonly nameServers: readonly string[] }> =
      await ctx.probes.arm.dnsZone(subscription, group, name, ctx.signal);
    switch (answer.kind) {
      case "found":
        return {
          check: check(
            "pass",
            `DNS zone ${name} is in resource group ${group} (name servers ${answer.value.nameServers.join(", ")})`,
          ),
          armAnswered: true,
          zone: { name, nameServers: answer.value.nameServers },
        };
      case "missing":
        answered = true;
        continue;
      case "refused":
        return {
          check: check("unknown", answer.detail),
          refused: { status: answer.status, detail: answer.detail },
          armAnswered: answered,
        };
      case "unknown":
        return { check: check("unknown", answer.detail), armAnswered: answered };
    }
  }
  return {
    check: {
      ...check(
        "fail",
        `no DNS zone named ${tried.join(" or ")} in resource group ${group} of subscription ${subscription}`,
      ),
      reason: "dns-zone-missing",
    },
    armAnswered: true,
  };
}
