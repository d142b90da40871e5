import type { ArmLookups } from "../../core/ports/preflightProbes.js";

/**
 * ARM lookups that ask once per run: many certificates share a zone, and every certificate
 * whose app certsched does not know reads the same subscription's list of sites (every page).
 */
export function memoizedArm(arm: ArmLookups): ArmLookups {
  const zones = new Map<string, ReturnType<ArmLookups["dnsZone"]>>();
  const sites = new Map<string, ReturnType<ArmLookups["sites"]>>();
  return {
    dnsZone(subscriptionId, resourceGroup, zone, signal) {
      const key = JSON.stringify([subscriptionId, resourceGroup.toLowerCase(), zone.toLowerCase()]);
      let answer = zones.get(key);
      if (!answer) {
        answer = arm.dnsZone(subscriptionId, resourceGroup, zone, signal);
        zones.set(key, answer);
      }
      return answer;
    },
    hostNameBindings: (site, signal) => arm.hostNameBindings(site, signal),
    sites(subscriptionId, signal) {
      let answer = sites.get(subscriptionId);
      if (!answer) {
        answer = arm.sites(subscriptionId, signal);
        sites.set(subscriptionId, answer);
      }
      return answer;
    },
  };
}
