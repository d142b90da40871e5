import { request } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { siteId, sitesListPath, zoneId } from "../../sim/index.js";
import { startTestArm, type TestArm } from "../support/arm.js";

const S = "00000000-0000-0000-0000-0000000000s1";
const RG = "rg-dns";
const API = "api-version=2018-05-01";

let t: TestArm;
let token: string;
beforeAll(async () => {
  t = await startTestArm({ pageSize: 2 });
  token = await t.tokens.token(t.resource);
});
afterAll(() => t.close());
beforeEach(() => {
  t.arm.clearFaults();
  t.arm.requests.splice(0);
});

/** A GET through Node's own TLS stack with no `ca` of its own: NODE_EXTRA_CA_CERTS must cover it. */
/** The fields of ARM's answers these tests read. */
interface ArmJson {
  readonly name?: string;
  readonly error?: { readonly code: string; readonly message: string };
  readonly value?: readonly { readonly name: string }[];
  readonly nextLink?: string;
}

async function get(path: string, bearer: string | null = token) {
  const url = path.startsWith("https://") ? path : `${t.arm.url}${path}`;
  const res = await request(url, {
    headers: bearer === null ? {} : { authorization: `Bearer ${bearer}` },
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, json: JSON.parse(text) as ArmJson };
}

describe("the simulator's Azure Resource Manager", () => {
  it("serves a DNS zone as ARM does, over TLS the test workers trust, with any api-version and any case", async () => {
    t.arm.addZone({
      subscriptionId: S,
      resourceGroup: RG,
      name: "contoso.com",
      nameServers: ["ns1-01.azure-dns.com.", "ns2-01.azure-dns.net."],
    });
    const a = await get(`${zoneId(S, RG, "contoso.com")}?${API}`);
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({
      id: zoneId(S, RG, "contoso.com"),
      name: "contoso.com",
      type: "Microsoft.Network/dnszones",
      location: "global",
      properties: { nameServers: ["ns1-01.azure-dns.com.", "ns2-01.azure-dns.net."] },
    });
    const b = await get(
      `${zoneId(S, "RG-DNS", "Contoso.COM").toUpperCase().replace("API", "api")}?api-version=2023-07-01-preview`,
    );
    expect(b.status).toBe(200);
    expect(b.json.name).toBe("contoso.com");
  });

  it("answers 404 ResourceNotFound for an unknown zone, naming it and its resource group", async () => {
    const a = await get(`${zoneId(S, RG, "nowhere.example")}?${API}`);
    expect(a.status).toBe(404);
    expect(a.json.error?.code).toBe("ResourceNotFound");
    expect(a.json.error?.message).toContain("Microsoft.Network/dnszones/nowhere.example");
    expect(a.json.error?.message).toContain(`resource group '${RG}'`);
  });

  it("refuses a request without a bearer token (401 AuthenticationFailed) and one its identity provider did not issue (401), and logs whether a bearer came", async () => {
    const none = await get(`${zoneId(S, RG, "contoso.com")}?${API}`, null);
    expect(none.status).toBe(401);
    expect(none.json.error?.code).toBe("AuthenticationFailed");
    expect(none.headers["www-authenticate"]).toMatch(/^Bearer /);
    const forged = await get(`${zoneId(S, RG, "contoso.com")}?${API}`, "simtok-forged");
    expect(forged.status).toBe(401);
    expect(forged.json.error?.code).toBe("InvalidAuthenticationToken");
    expect(t.arm.requests.map((r) => r.hadBearer)).toEqual([false, true]);
    expect(JSON.stringify(t.arm.requests)).not.toContain("simtok-forged");
  });

  it("answers 400 MissingApiVersionParameter without an api-version", async () => {
    const a = await get(zoneId(S, RG, "contoso.com"));
    expect(a.status).toBe(400);
    expect(a.json.error?.code).toBe("MissingApiVersionParameter");
  });

  it("lists a subscription's sites in pages of the configured size, following nextLink, each with its host names", async () => {
    const sub = "sub-paging";
    for (let i = 1; i <= 5; i++) {
      t.arm.addSite({
        subscriptionId: sub,
        resourceGroup: "rg-web",
        name: `app${i}`,
        hostNames: [`www${i}.contoso.com`],
      });
    }
    t.arm.addSite({
      subscriptionId: "other-sub",
      resourceGroup: "rg-web",
      name: "elsewhere",
      hostNames: ["x.contoso.com"],
    });
    const pages: ArmJson[] = [];
    let next: string | undefined = `${sitesListPath(sub)}?${API}`;
    while (next) {
      const page = await get(next);
      expect(page.status).toBe(200);
      pages.push(page.json);
      next = page.json.nextLink;
    }
    expect(pages.map((p) => p.value?.length)).toEqual([2, 2, 1]);
    const sites = pages.flatMap((p) => p.value ?? []);
    expect(sites.map((s) => s.name)).toEqual(["app1", "app2", "app3", "app4", "app5"]);
    expect(sites[0]).toMatchObject({
      id: siteId(sub, "rg-web", "app1"),
      type: "Microsoft.Web/sites",
      properties: { hostNames: ["www1.contoso.com", "app1.azurewebsites.net"] },
    });
    expect(pages[0]?.nextLink).toMatch(
      new RegExp(
        `^${t.arm.url}/subscriptions/sub-paging/providers/Microsoft\\.Web/sites\\?api-version=2018-05-01&`,
      ),
    );
  });

  it("lists the host-name bindings of a site and of a slot, named site/host and site/slot/host", async () => {
    t.arm.addSite({
      subscriptionId: S,
      resourceGroup: "rg-web",
      name: "shop",
      hostNames: ["shop.contoso.com"],
      slots: [{ name: "staging", hostNames: ["staging.contoso.com"] }],
    });
    const prod = await get(`${siteId(S, "rg-web", "shop")}/hostNameBindings?${API}`);
    expect(prod.status).toBe(200);
    expect(prod.json.value?.map((b) => b.name)).toEqual([
      "shop/shop.contoso.com",
      "shop/shop.azurewebsites.net",
    ]);
    expect(prod.json.value?.[0]).toMatchObject({
      id: `${siteId(S, "rg-web", "shop")}/hostNameBindings/shop.contoso.com`,
      type: "Microsoft.Web/sites/hostNameBindings",
      properties: { siteName: "shop", hostNameType: "Verified" },
    });
    const slot = await get(`${siteId(S, "rg-web", "shop", "staging")}/hostNameBindings?${API}`);
    expect(slot.status).toBe(200);
    expect(slot.json.value?.map((b) => b.name)).toEqual([
      "shop/staging/staging.contoso.com",
      "shop/staging/shop-staging.azurewebsites.net",
    ]);
  });

  it("answers 404 ParentResourceNotFound for the bindings of an unknown site or slot, and after removeSite", async () => {
    t.arm.addSite({ subscriptionId: S, resourceGroup: "rg-web", name: "gone", hostNames: [] });
    expect(
      (await get(`${siteId(S, "rg-web", "gone", "nope")}/hostNameBindings?${API}`)).json.error
        ?.code,
    ).toBe("ParentResourceNotFound");
    expect(t.arm.removeSite(S, "rg-web", "gone")).toBe(true);
    const a = await get(`${siteId(S, "rg-web", "gone")}/hostNameBindings?${API}`);
    expect(a.status).toBe(404);
    expect(a.json.error).toEqual({
      code: "ParentResourceNotFound",
      message: expect.stringContaining("Parent resource 'gone' not found"),
    });
  });

  it("applies a fault to the resource (or path prefix) it was set on and nowhere else, until cleared", async () => {
    t.arm.addZone({
      subscriptionId: S,
      resourceGroup: RG,
      name: "a.example",
      nameServers: ["ns1."],
    });
    t.arm.addZone({
      subscriptionId: S,
      resourceGroup: RG,
      name: "b.example",
      nameServers: ["ns1."],
    });
    t.arm.setFault(zoneId(S, RG, "a.example"), 403);
    const refused = await get(`${zoneId(S, RG, "a.example")}?${API}`);
    expect(refused.status).toBe(403);
    expect(refused.json.error?.code).toBe("AuthorizationFailed");
    expect(refused.json.error?.message).toContain("'Microsoft.Network/dnsZones/read'");
    expect((await get(`${zoneId(S, RG, "b.example")}?${API}`)).status).toBe(200);

    t.arm.setFault(`/subscriptions/${S}/resourceGroups/${RG}`, 500);
    expect((await get(`${zoneId(S, RG, "b.example")}?${API}`)).json.error?.code).toBe(
      "InternalServerError",
    );
    // The longer prefix wins.
    expect((await get(`${zoneId(S, RG, "a.example")}?${API}`)).status).toBe(403);
    t.arm.setFault(zoneId(S, RG, "a.example"), 401);
    expect((await get(`${zoneId(S, RG, "a.example")}?${API}`)).status).toBe(401);
    t.arm.setFault(zoneId(S, RG, "b.example"), 404);
    expect((await get(`${zoneId(S, RG, "b.example")}?${API}`)).status).toBe(404);
    // A prefix covers whole segments only: "a.ex" is not a prefix of the zone "a.example".
    t.arm.clearFaults();
    t.arm.setFault(
      `/subscriptions/${S}/resourceGroups/${RG}/providers/Microsoft.Network/dnsZones/a.ex`,
      500,
    );
    expect((await get(`${zoneId(S, RG, "a.example")}?${API}`)).status).toBe(200);
    t.arm.clearFaults();
    expect((await get(`${zoneId(S, RG, "b.example")}?${API}`)).status).toBe(200);
  });

  it("never answers a request under a hanging path", async () => {
    t.arm.setFault(sitesListPath(S), "hang");
    const outcome = await Promise.race([
      get(`${sitesListPath(S)}?${API}`).then(() => "answered"),
      new Promise((resolve) => setTimeout(() => resolve("silent"), 500)),
    ]);
    expect(outcome).toBe("silent");
    expect(t.arm.requests.at(-1)?.path).toBe(sitesListPath(S));
  });
});
