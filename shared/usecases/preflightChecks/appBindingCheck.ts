import type { SiteRef } from "../../core/ports/preflightProbes.js";
import { MAX_CHECK_DETAIL, type PreflightCheck } from "../../core/preflight/preflight.js";
import { redact } from "../../lib/redact/redact.js";
import { boundDetail } from "../../lib/text/boundDetail.js";
import type { CheckContext, CheckOutcome, CheckSubject } from "./checkTypes.js";

/**
 * `app-binding`: the App Service app still has the domain bound, so the service can
 * install the renewed certificate on it. With the app certsched knows from the create request,
 * its (or its slot's) host-name bindings; without it (a due-list record), any app of the
 * subscription that lists the domain among its host names.
 */

/** Host names quoted in a detail (the detail is bounded anyway). */
const MAX_QUOTED = 5;

const detail = (text: string) => boundDetail(redact(text), MAX_CHECK_DETAIL);

/** Compared without case or a trailing dot; a wildcard matches only the same wildcard. */
const sameHost = (a: string, b: string) =>
  a.toLowerCase().replace(/\.$/, "") === b.toLowerCase().replace(/\.$/, "");

function result(
  status: PreflightCheck["status"],
  text: string,
  reason?: PreflightCheck["reason"],
): PreflightCheck {
  return { check: "app-binding", status, detail: detail(text), ...(reason ? { reason } : {}) };
}

function quoted(hosts: readonly string[]): string {
  if (hosts.length === 0) return "none";
  const shown = hosts.slice(0, MAX_QUOTED).join(", ");
  return hosts.length > MAX_QUOTED ? `${shown} and ${hosts.length - MAX_QUOTED} more` : shown;
}

async function boundToSite(
  domain: string,
  site: SiteRef,
  ctx: CheckContext,
): Promise<CheckOutcome> {
  const which = site.slot === undefined ? site.site : `${site.site}/${site.slot}`;
  const answer = await ctx.probes.arm.hostNameBindings(site, ctx.signal);
  switch (answer.kind) {
    case "found":
      if (answer.value.some((host) => sameHost(host, domain))) {
        return { check: result("pass", `${domain} is bound to app ${which}`), armAnswered: true };
      }
      return {
        check: result(
          "fail",
          `${domain} is not bound to app ${which} in resource group ${site.resourceGroup} (bound: ${quoted(answer.value)})`,
          "hostname-not-bound",
        ),
        armAnswered: true,
      };
    case "missing":
      return { check: result("fail", answer.detail, "app-missing"), armAnswered: true };
    case "refused":
      return {
        check: result("unknown", answer.detail),
        refused: { status: answer.status, detail: answer.detail },
        armAnswered: false,
      };
    case "unknown":
      return { check: result("unknown", answer.detail), armAnswered: false };
  }
}

export async function appBindingCheck(
  subject: CheckSubject,
  ctx: CheckContext,
): Promise<CheckOutcome> {
  const domain = subject.rootDomain;
  if (subject.site) return boundToSite(domain, subject.site, ctx);
  const subscription = subject.cloudSubscriptionId?.trim();
  if (!subscription) {
    return {
      check: result(
        "unknown",
        "the record names no cloudSubscriptionId and certsched does not know the app: it cannot tell where the domain should be bound",
      ),
    };
  }
  const answer = await ctx.probes.arm.sites(subscription, ctx.signal);
  switch (answer.kind) {
    case "found": {
      const site = answer.value.find((s) => s.hostNames.some((host) => sameHost(host, domain)));
      if (site) {
        return {
          check: result("pass", `${domain} is a host name of app ${site.name}`),
          armAnswered: true,
        };
      }
      return {
        check: result(
          "fail",
          `no app in subscription ${subscription} has ${domain} among its host names (${answer.value.length} ${answer.value.length === 1 ? "app" : "apps"} read)`,
          "hostname-not-bound",
        ),
        armAnswered: true,
      };
    }
    case "missing":
      // ARM says the subscription itself is not there: no app of it can hold the domain.
      return {
        check: result("fail", answer.detail, "hostname-not-bound"),
        armAnswered: true,
      };
    case "refused":
      return {
        check: result("unknown", answer.detail),
        refused: { status: answer.status, detail: answer.detail },
        armAnswered: false,
      };
    case "unknown":
      return { check: result("unknown", answer.detail), armAnswered: false };
  }
}
