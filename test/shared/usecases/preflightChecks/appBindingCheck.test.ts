import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SiteRef } from "../../../../shared/core/ports/preflightProbes.js";
import { accessCheck } from "../../../../shared/usecases/preflightChecks/accessCheck.js";
import { appBindingCheck } from "../../../../shared/usecases/preflightChecks/appBindingCheck.js";
import type { CheckSubject } from "../../../../shared/usecases/preflightChecks/checkTypes.js";
import { siteId, sitesListPath } from "../../../../sim/index.js";
import { armCheckContext, startTestArm, type TestArm } from "../../../support/arm.js";

/* app-binding against the simulator's ARM, through the real adapter: every outcome. */

const S = "a77b0e10-0000-4000-8000-0000000a9b1d";
const RG = "rg-web";
const SHOP: SiteRef = { subscriptionId: S, resourceGroup: RG, site: "shop" };
const STAGING: SiteRef = { ...SHOP, slot: "staging" };

let t: TestArm;
beforeAll(async () => {
  t = await startTestArm({ pageSize: 2 });
  t.arm.addSite({
    subscriptionId: S,
    resourceGroup: RG,
    name: "shop",
    hostNames: ["Shop.Contoso.com", "*.img.contoso.com"],
    slots: [{ name: "staging", hostNames: ["staging.contoso.com"] }],
  });
  // The subscription's list: five apps, three pages; the one with the domain is on the last.
  for (const [i, host] of [
    "a.contoso.com",
    "b.contoso.com",
    "c.contoso.com",
    "d.contoso.com",
  ].entries()) {
    t.arm.addSite({ subscriptionId: S, resourceGroup: RG, name: `app${i}`, hostNames: [host] });
  }
});
afterAll(() => t.close());
beforeEach(() => {
  t.arm.clearFaults();
  t.arm.requests.splice(0);
});

const subject = (
  rootDomain: string,
  site?: SiteRef,
  extra: Partial<CheckSubject> = {},
): CheckSubject => ({
  certificateName: "cert",
  rootDomain,
  challengeType: "http",
  target: "Cloud App Service",
  cloudSubscriptionId: S,
  site,
  ...extra,
});

describe("app-binding, with the app certsched knows", () => {
  it("passes when the domain is among the app's bindings, without regard to case", async () => {
    const outcome = await appBindingCheck(subject("shop.contoso.com", SHOP), armCheckContext(t));
    expect(outcome).toEqual({
      check: {
        check: "app-binding",
        status: "pass",
        detail: "shop.contoso.com is bound to app shop",
      },
      armAnswered: true,
    });
    expect(t.arm.requests.map((r) => r.path)).toEqual([
      `${siteId(S, RG, "shop")}/hostNameBindings`,
    ]);
  });

  it("reads a slot's own bindings: bound on the slot passes, the same domain on production fails", async () => {
    const slot = await appBindingCheck(subject("staging.contoso.com", STAGING), armCheckContext(t));
    expect(slot.check).toEqual({
      check: "app-binding",
      status: "pass",
      detail: "staging.contoso.com is bound to app shop/staging",
    });
    const prod = await appBindingCheck(subject("staging.contoso.com", SHOP), armCheckContext(t));
    expect(prod.check).toEqual({
      check: "app-binding",
      status: "fail",
      reason: "hostname-not-bound",
      detail: `staging.contoso.com is not bound to app shop in resource group ${RG} (bound: shop.contoso.com, *.img.contoso.com, shop.azurewebsites.net)`,
    });
  });

  it("matches a wildcard binding only to the same wildcard", async () => {
    expect(
      (await appBindingCheck(subject("*.img.contoso.com", SHOP), armCheckContext(t))).check.status,
    ).toBe("pass");
    const name = await appBindingCheck(subject("cdn.img.contoso.com", SHOP), armCheckContext(t));
    expect(name.check).toMatchObject({ status: "fail", reason: "hostname-not-bound" });
    const wildcard = await appBindingCheck(subject("*.contoso.com", SHOP), armCheckContext(t));
    expect(wildcard.check).toMatchObject({ status: "fail", reason: "hostname-not-bound" });
  });

  it("fails app-missing when ARM has no such app or slot", async () => {
    const gone = await appBindingCheck(
      subject("shop.contoso.com", { ...SHOP, site: "closed" }),
      armCheckContext(t),
    );
    expect(gone).toEqual({
      check: {
        check: "app-binding",
        status: "fail",
        reason: "app-missing",
        detail: `Azure Resource Manager has no app closed in resource group ${RG} (404 ParentResourceNotFound)`,
      },
      armAnswered: true,
    });
    const slot = await appBindingCheck(
      subject("shop.contoso.com", { ...SHOP, slot: "preview" }),
      armCheckContext(t),
    );
    expect(slot.check).toMatchObject({ status: "fail", reason: "app-missing" });
    expect(slot.check.detail).toContain("app shop/preview");
  });

  it("is unknown and refused on a 403, which the access check reports as role-missing", async () => {
    t.arm.setFault(siteId(S, RG, "shop"), 403);
    const outcome = await appBindingCheck(
      subject("staging.contoso.com", STAGING),
      armCheckContext(t),
    );
    expect(outcome.check.status).toBe("unknown");
    expect(outcome.refused?.status).toBe(403);
    expect(accessCheck([outcome]).check).toMatchObject({ status: "fail", reason: "role-missing" });
  });

  it("is unknown within the timeout when ARM does not answer", async () => {
    t.arm.setFault(siteId(S, RG, "shop"), "hang");
    const started = Date.now();
    const outcome = await appBindingCheck(
      subject("shop.contoso.com", SHOP),
      armCheckContext(t, 300),
    );
    expect(Date.now() - started).toBeLessThan(5_300);
    expect(outcome).toMatchObject({ check: { status: "unknown" }, armAnswered: false });
    expect(outcome.check.detail).toContain("within 300 ms");
  });
});

describe("app-binding, without the app (a due-list record)", () => {
  it("passes when an app of the subscription lists the domain, reading every page", async () => {
    const outcome = await appBindingCheck(subject("D.contoso.com"), armCheckContext(t));
    expect(outcome).toEqual({
      check: {
        check: "app-binding",
        status: "pass",
        detail: "D.contoso.com is a host name of app app3",
      },
      armAnswered: true,
    });
    expect(t.arm.requests.map((r) => r.path)).toEqual(Array(3).fill(sitesListPath(S)));
  });

  it("fails hostname-not-bound when no app lists it", async () => {
    const outcome = await appBindingCheck(subject("gone.contoso.com"), armCheckContext(t));
    expect(outcome.check).toEqual({
      check: "app-binding",
      status: "fail",
      reason: "hostname-not-bound",
      detail: `no app in subscription ${S} has gone.contoso.com among its host names (5 apps read)`,
    });
  });

  it("is refused 401 (credentials-refused) when ARM refuses the token, and unknown without a subscription", async () => {
    t.arm.setFault(sitesListPath(S), 401);
    const refused = await appBindingCheck(subject("d.contoso.com"), armCheckContext(t));
    expect(refused).toMatchObject({
      check: { status: "unknown" },
      refused: { status: 401 },
      armAnswered: false,
    });
    expect(accessCheck([refused]).check).toMatchObject({
      status: "fail",
      reason: "credentials-refused",
    });
    const noSub = await appBindingCheck(
      subject("d.contoso.com", undefined, { cloudSubscriptionId: undefined }),
      armCheckContext(t),
    );
    expect(noSub.check.status).toBe("unknown");
    expect(noSub.check.detail).toContain("cloudSubscriptionId");
    expect(noSub.armAnswered).toBeUndefined();
  });
});
