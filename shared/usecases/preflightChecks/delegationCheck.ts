import { MAX_CHECK_DETAIL, type PreflightCheck } from "../../core/preflight/preflight.js";
import { redact } from "../../lib/redact/redact.js";
import { boundDetail } from "../../lib/text/boundDetail.js";
import type { CheckContext, CheckOutcome, CheckSubject } from "./checkTypes.js";
import { detailList, detailValue } from "./dnsDetail.js";

/** The Azure DNS zone as ARM describes it (the `dns-zone` check found it). */
export interface DelegatedZone {
  readonly name: string;
  /** The zone's nameServers in ARM. */
  readonly nameServers: readonly string[];
}

/** Name servers compare case-insensitively and without the trailing dot (contract). */
const hostKey = (host: string): string => host.trim().toLowerCase().replace(/\.$/, "");

function hostSet(hosts: readonly string[]): string[] {
  return [...new Set(hosts.map(hostKey))].sort();
}

/**
 * The `dns-delegation` check: the world asks the zone's public NS, so a renewal's TXT record in
 * the Azure zone is only seen when those are the zone's own name servers (as sets).
 */
export async function delegationCheck(
  _subject: CheckSubject,
  ctx: CheckContext,
  zone: DelegatedZone,
): Promise<CheckOutcome> {
  const answer = await ctx.probes.dns.ns(zone.name, ctx.signal);
  const azure = hostSet(zone.nameServers);
  const name = detailValue(zone.name);
  const azureList = azure.length > 0 ? detailList(azure) : "none";
  if (answer.kind === "unknown") {
    return outcome("unknown", `NS of ${name} could not be read: ${answer.detail}`);
  }
  if (answer.kind === "none" || answer.records.length === 0) {
    return outcome(
      "fail",
      `no public NS records for ${name}; the Azure DNS zone's name servers: ${azureList}`,
    );
  }
  const world = hostSet(answer.records);
  const same = world.length === azure.length && world.every((host, i) => host === azure[i]);
  if (same) {
    return outcome("pass", `public NS of ${name} are the Azure DNS zone's: ${azureList}`);
  }
  return outcome(
    "fail",
    `public NS of ${name}: ${detailList(world)}; the Azure DNS zone's: ${azureList}`,
  );
}

function outcome(status: PreflightCheck["status"], detail: string): CheckOutcome {
  return {
    check: {
      check: "dns-delegation",
      status,
      ...(status === "fail" ? { reason: "dns-not-delegated" as const } : {}),
      detail: boundDetail(redact(detail), MAX_CHECK_DETAIL),
    },
  };
}
