import { describe, expect, it } from "vitest";
import type { ArmLookups } from "../../../../shared/core/ports/preflightProbes.js";
import { memoizedArm } from "../../../../shared/usecases/preflightChecks/memoizedArm.js";

function counting(): { arm: ArmLookups; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    arm: {
      dnsZone: async (s, rg, zone) => {
        calls.push(`zone ${s}/${rg}/${zone}`);
        return { kind: "found", value: { nameServers: ["ns1.test"] } };
      },
      hostNameBindings: async (site) => {
        calls.push(`bindings ${site.site}`);
        return { kind: "found", value: [] };
      },
      sites: async (s) => {
        calls.push(`sites ${s}`);
        return { kind: "found", value: [] };
      },
    },
  };
}

describe("ARM asked once per run", () => {
  it("asks for a zone once, whatever the case of its group and name", async () => {
    const { arm, calls } = counting();
    const once = memoizedArm(arm);
    await Promise.all([
      once.dnsZone("s", "rg-DNS", "Contoso.com"),
      once.dnsZone("s", "rg-dns", "contoso.com"),
      once.dnsZone("s", "rg-dns", "fabrikam.com"),
      once.dnsZone("t", "rg-dns", "contoso.com"),
    ]);
    expect(calls).toEqual([
      "zone s/rg-DNS/Contoso.com",
      "zone s/rg-dns/fabrikam.com",
      "zone t/rg-dns/contoso.com",
    ]);
  });

  it("lists a subscription's sites once; bindings are each site's own", async () => {
    const { arm, calls } = counting();
    const once = memoizedArm(arm);
    await once.sites("s");
    await once.sites("s");
    await once.sites("t");
    const site = { subscriptionId: "s", resourceGroup: "rg", site: "app" };
    await once.hostNameBindings(site);
    await once.hostNameBindings(site);
    expect(calls).toEqual(["sites s", "sites t", "bindings app", "bindings app"]);
  });
});
