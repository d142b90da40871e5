import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { accessCheck } from "../../../../shared/usecases/preflightChecks/accessCheck.js";
import type { CheckSubject } from "../../../../shared/usecases/preflightChecks/checkTypes.js";
import {
  dnsZoneCheck,
  MAX_ZONE_NAMES,
  zoneCandidates,
} from "../../../../shared/usecases/preflightChecks/dnsZoneCheck.js";
import { zoneId } from "../../../../sim/index.js";
import { armCheckContext, startTestArm, type TestArm } from "../../../support/arm.js";

/* dns-zone against the simulator's ARM, through the real adapter: every outcome. */

const S = "6c1f9a52-0000-4000-8000-00000000d115";
const RG = "rg-dns";
const NS = [
  "ns1-07.azure-dns.com.",
  "ns2-07.azure-dns.net.",
  "ns3-07.azure-dns.org.",
  "ns4-07.azure-dns.info.",
];

let t: TestArm;
beforeAll(async () => {
  t = await startTestArm();
  t.arm.addZone({ subscriptionId: S, resourceGroup: RG, name: "contoso.com", nameServers: NS });
  t.arm.addZone({
    subscriptionId: S,
    resourceGroup: RG,
    name: "shop.fabrikam.com",
    nameServers: ["ns1.shop."],
  });
  t.arm.addZone({
    subscriptionId: S,
    resourceGroup: RG,
    name: "fabrikam.com",
    nameServers: ["ns1.fabrikam."],
  });
});
afterAll(() => t.close());
beforeEach(() => {
  t.arm.clearFaults();
  t.arm.requests.splice(0);
});

const subject = (rootDomain: string, extra: Partial<CheckSubject> = {}): CheckSubject => ({
  certificateName: "cert",
  rootDomain,
  challengeType: "dns",
  target: "Cloud Key Vault + DNS",
  cloudSubscriptionId: S,
  dnsZoneResourceGroup: RG,
  ...extra,
});

/** The zone names ARM was asked, in order. */
const asked = () => t.arm.requests.map((r) => r.path.split("/").at(-1));

describe("zoneCandidates", () => {
  it("climbs from the domain to its two-label parent, a wildcard's *. removed, never to the TLD", () => {
    expect(zoneCandidates("a.b.contoso.com")).toEqual([
      "a.b.contoso.com",
      "b.contoso.com",
      "contoso.com",
    ]);
    expect(zoneCandidates("*.Contoso.com.")).toEqual(["contoso.com"]);
    expect(zoneCandidates("localhost")).toEqual(["localhost"]);
  });

  it("asks at most MAX_ZONE_NAMES names, closest first", () => {
    const deep = `${Array.from({ length: 20 }, (_, i) => `l${i}`).join(".")}.contoso.com`;
    const names = zoneCandidates(deep);
    expect(names).toHaveLength(MAX_ZONE_NAMES);
    expect(names[0]).toBe(deep);
  });
});

describe("dns-zone", () => {
  it("passes for the zone named like the domain, returning it for the delegation check", async () => {
    const outcome = await dnsZoneCheck(subject("contoso.com"), armCheckContext(t));
    expect(outcome).toEqual({
      check: {
        check: "dns-zone",
        status: "pass",
        detail: `DNS zone contoso.com is in resource group ${RG} (name servers ${NS.join(", ")})`,
      },
      armAnswered: true,
      zone: { name: "contoso.com", nameServers: NS },
    });
  });

  it("passes for the closest parent zone, asking each name from the domain up", async () => {
    const outcome = await dnsZoneCheck(subject("www.api.contoso.com"), armCheckContext(t));
    expect(outcome.check.status).toBe("pass");
    expect(outcome.zone?.name).toBe("contoso.com");
    expect(asked()).toEqual(["www.api.contoso.com", "api.contoso.com", "contoso.com"]);
    // Both shop.fabrikam.com and fabrikam.com exist: the closer one is the service's zone.
    const closer = await dnsZoneCheck(subject("*.shop.fabrikam.com"), armCheckContext(t));
    expect(closer.zone).toEqual({ name: "shop.fabrikam.com", nameServers: ["ns1.shop."] });
  });

  it("fails dns-zone-missing when ARM answers 404 for every name, naming them and the resource group, never asking the TLD", async () => {
    const outcome = await dnsZoneCheck(subject("www.northwind.com"), armCheckContext(t));
    expect(outcome).toEqual({
      check: {
        check: "dns-zone",
        status: "fail",
        reason: "dns-zone-missing",
        detail: `no DNS zone named www.northwind.com or northwind.com in resource group ${RG} of subscription ${S}`,
      },
      armAnswered: true,
    });
    expect(asked()).toEqual(["www.northwind.com", "northwind.com"]);
  });

  it("fails when the zone is in another resource group than the record names", async () => {
    const outcome = await dnsZoneCheck(
      subject("contoso.com", { dnsZoneResourceGroup: "contoso-dns" }),
      armCheckContext(t),
    );
    expect(outcome.check).toMatchObject({ status: "fail", reason: "dns-zone-missing" });
    expect(outcome.check.detail).toContain("resource group contoso-dns");
  });

  it("is unknown and refused when ARM refuses (401, 403), which the access check reports", async () => {
    t.arm.setFault(zoneId(S, RG, "contoso.com"), 401);
    const unauthorized = await dnsZoneCheck(subject("contoso.com"), armCheckContext(t));
    expect(unauthorized.check.status).toBe("unknown");
    expect(unauthorized.refused?.status).toBe(401);
    expect(accessCheck([unauthorized]).check).toMatchObject({
      check: "access",
      status: "fail",
      reason: "credentials-refused",
    });

    t.arm.setFault(zoneId(S, RG, "contoso.com"), 403);
    const forbidden = await dnsZoneCheck(subject("www.contoso.com"), armCheckContext(t));
    expect(forbidden.check.status).toBe("unknown");
    // The 404 for www.contoso.com was an answer; the 403 for contoso.com a refusal.
    expect(forbidden).toMatchObject({ refused: { status: 403 }, armAnswered: true });
    const access = accessCheck([forbidden]).check;
    expect(access).toMatchObject({ status: "fail", reason: "role-missing" });
    expect(access.detail).toContain("AuthorizationFailed");
  });

  it("is unknown within the timeout when ARM does not answer, and so is access", async () => {
    t.arm.setFault(zoneId(S, RG, "contoso.com"), "hang");
    const started = Date.now();
    const outcome = await dnsZoneCheck(subject("contoso.com"), armCheckContext(t, 300));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(outcome).toEqual({
      check: {
        check: "dns-zone",
        status: "unknown",
        detail: `no answer from Azure Resource Manager within 300 ms reading DNS zone contoso.com in resource group ${RG} (CERTSCHED_PREFLIGHT_TIMEOUT)`,
      },
      armAnswered: false,
    });
    expect(accessCheck([outcome]).check.status).toBe("unknown");
  });

  it("is unknown on a 5xx after a 404, the 404 still an answer", async () => {
    t.arm.setFault(zoneId(S, RG, "contoso.com"), 500);
    const outcome = await dnsZoneCheck(subject("www.contoso.com"), armCheckContext(t));
    expect(outcome.check.status).toBe("unknown");
    expect(outcome.check.detail).toMatch(
      /^Azure Resource Manager answered 500 InternalServerError/,
    );
    expect(outcome.armAnswered).toBe(true);
  });

  it("is unknown, naming the field, without a subscription or a resource group, and asks ARM nothing", async () => {
    const noSub = await dnsZoneCheck(
      subject("contoso.com", { cloudSubscriptionId: undefined }),
      armCheckContext(t),
    );
    expect(noSub).toEqual({
      check: {
        check: "dns-zone",
        status: "unknown",
        detail:
          "the record names no cloudSubscriptionId: certsched cannot tell which DNS zone the service will use",
      },
    });
    const noGroup = await dnsZoneCheck(
      subject("contoso.com", { dnsZoneResourceGroup: " " }),
      armCheckContext(t),
    );
    expect(noGroup.check.detail).toContain("no dnsZoneResourceGroup");
    expect(t.arm.requests).toHaveLength(0);
  });
});
