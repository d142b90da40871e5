import { request } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  GRAPH_TYPES,
  HOSTILE_DATES,
  HOSTILE_NAME,
  HOSTILE_THUMBPRINTS,
  hostileEstateRows,
  hugeRow,
  manyCertificateRows,
  quotaSpan,
} from "../../sim/index.js";
import { startTestArm, type TestArm } from "../support/arm.js";

/** The simulator's Resource Graph, over the loopback socket, with the sim identity's token. */

const S1 = "00000000-0000-0000-0000-0000000000a1";
const S2 = "00000000-0000-0000-0000-0000000000a2";
const PATH = "/providers/Microsoft.ResourceGraph/resources?api-version=2022-10-01";

let t: TestArm;
let token: string;
beforeAll(async () => {
  t = await startTestArm();
  token = await t.tokens.token(t.resource);
});
afterAll(() => t.close());
beforeEach(() => {
  t.arm.estate.clear();
  t.arm.estate.setQuota(1000);
});

interface GraphJson {
  totalRecords?: number;
  count?: number;
  data?: {
    id: string;
    name: string;
    type: string;
    subscriptionId: string;
    properties: Record<string, unknown>;
  }[];
  facets?: unknown[];
  resultTruncated?: string;
  $skipToken?: string;
  error?: { code: string; message: string };
}

async function graph(body: unknown, bearer: string | null = token) {
  const res = await request(`${t.arm.url}${PATH}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }),
    },
    body: JSON.stringify(body),
  });
  return {
    status: res.statusCode,
    headers: res.headers,
    json: (await res.body.json()) as GraphJson,
  };
}

const q = (type: string) =>
  `resources | where type =~ '${type}' | project id, name, type, subscriptionId, resourceGroup, location, properties`;

function seed() {
  const e = t.arm.estate;
  e.addAppServiceCertificate({
    subscriptionId: S1,
    resourceGroup: "rg-web",
    name: "shop-cert",
    thumbprint: "A".repeat(40),
    expiresAt: new Date("2027-01-01T00:00:00Z"),
    hostNames: ["shop.contoso.com"],
  });
  e.addSite({
    subscriptionId: S1,
    resourceGroup: "rg-web",
    name: "shop",
    bindings: [{ hostName: "shop.contoso.com", thumbprint: "A".repeat(40) }],
  });
  e.addSite({
    subscriptionId: S1,
    resourceGroup: "rg-web",
    name: "shop",
    slot: "staging",
    bindings: [{ hostName: "staging.contoso.com" }],
  });
  e.addGateway({
    subscriptionId: S2,
    resourceGroup: "rg-net",
    name: "agw",
    certificates: [
      { name: "legacy", keyVaultSecretId: "https://kv-team.vault.azure.net/secrets/legacy" },
    ],
    listeners: [{ name: "https-legacy", hostName: "legacy.contoso.com", certificate: "legacy" }],
  });
  e.addFrontDoorDomain({
    subscriptionId: S2,
    resourceGroup: "rg-net",
    profile: "fd",
    name: "www",
    hostName: "www.contoso.com",
    secret: {
      name: "www-secret",
      secretSourceId: `/subscriptions/${S2}/resourceGroups/rg-kv/providers/Microsoft.KeyVault/vaults/kv-team/secrets/www`,
    },
  });
  e.addVault({ subscriptionId: S2, resourceGroup: "rg-kv", name: "kv-team" });
}

describe("the simulator's Resource Graph", () => {
  it("answers each estate type's rows in Azure's shape, across subscriptions, with the quota headers", async () => {
    seed();
    const certs = await graph({
      query: q("microsoft.web/certificates"),
      options: { resultFormat: "objectArray" },
    });
    expect(certs.status).toBe(200);
    expect(certs.json).toMatchObject({
      totalRecords: 1,
      count: 1,
      facets: [],
      resultTruncated: "false",
    });
    expect(certs.json.$skipToken).toBeUndefined();
    expect(certs.json.data?.[0]).toMatchObject({
      name: "shop-cert",
      type: GRAPH_TYPES.appServiceCertificate,
      subscriptionId: S1,
      resourceGroup: "rg-web",
      properties: {
        thumbprint: "A".repeat(40),
        expirationDate: "2027-01-01T00:00:00.000+00:00",
        hostNames: ["shop.contoso.com"],
      },
    });
    expect(certs.headers["x-ms-user-quota-remaining"]).toBe("999");
    expect(certs.headers["x-ms-user-quota-resets-after"]).toMatch(/^00:00:0[1-5]$/);
    const sites = await graph({
      query: "resources | where type in~ ('microsoft.web/sites', 'microsoft.web/sites/slots')",
    });
    expect(sites.json.data?.map((r) => r.name)).toEqual(["shop", "shop/staging"]);
    expect(sites.json.data?.[0]?.properties.hostNameSslStates).toEqual([
      expect.objectContaining({
        name: "shop.contoso.com",
        sslState: "SniEnabled",
        thumbprint: "A".repeat(40),
      }),
    ]);
    const agw = await graph({ query: q("microsoft.network/applicationgateways") });
    const props = agw.json.data?.[0]?.properties as {
      sslCertificates: unknown[];
      httpListeners: unknown[];
    };
    expect(props.sslCertificates[0]).toMatchObject({
      name: "legacy",
      properties: { keyVaultSecretId: "https://kv-team.vault.azure.net/secrets/legacy" },
    });
    expect(props.httpListeners[0]).toMatchObject({
      properties: {
        hostName: "legacy.contoso.com",
        sslCertificate: { id: expect.stringMatching(/\/sslCertificates\/legacy$/) },
      },
    });
    const fd = await graph({
      query:
        "resources | where type =~ 'microsoft.cdn/profiles/customdomains' or type =~ 'microsoft.cdn/profiles/secrets'",
    });
    expect(fd.json.data?.map((r) => r.type)).toEqual([
      GRAPH_TYPES.frontDoorDomain,
      GRAPH_TYPES.frontDoorSecret,
    ]);
    const kv = await graph({ query: q("microsoft.keyvault/vaults"), subscriptions: [S2] });
    expect(kv.json.data?.[0]?.properties.vaultUri).toBe("https://kv-team.vault.azure.net/");
    expect(
      (await graph({ query: q("microsoft.keyvault/vaults"), subscriptions: [S1] })).json.data,
    ).toEqual([]);
  });

  it("pages by $top and an opaque skip token until the last page, which has none", async () => {
    for (let i = 0; i < 5; i++)
      t.arm.estate.addVault({ subscriptionId: S1, resourceGroup: "rg", name: `kv${i}` });
    const names: string[] = [];
    let skip: string | undefined;
    let pages = 0;
    do {
      const page = await graph({
        query: q(GRAPH_TYPES.vault),
        options: { $top: 2, ...(skip ? { $skipToken: skip } : {}) },
      });
      expect(page.json.totalRecords).toBe(5);
      names.push(...(page.json.data ?? []).map((r) => r.name));
      skip = page.json.$skipToken;
      pages += 1;
    } while (skip !== undefined && pages < 10);
    expect(pages).toBe(3);
    expect(names).toEqual(["kv0", "kv1", "kv2", "kv3", "kv4"]);
    expect(
      (await graph({ query: q(GRAPH_TYPES.vault), options: { $skipToken: "bm90LWEtdG9rZW4=" } }))
        .status,
    ).toBe(400);
  });

  it("never ends its pages under endless-pages, and repeats one token under repeat-token", async () => {
    t.arm.estate.addVault({ subscriptionId: S1, resourceGroup: "rg", name: "kv" });
    t.arm.estate.setFault("endless-pages");
    const tokens = new Set<string>();
    let skip: string | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await graph({
        query: q(GRAPH_TYPES.vault),
        options: skip ? { $skipToken: skip } : {},
      });
      skip = page.json.$skipToken;
      expect(skip).toBeDefined();
      tokens.add(skip ?? "");
    }
    expect(tokens.size).toBe(5);
    t.arm.estate.setFault("repeat-token");
    const a = await graph({ query: q(GRAPH_TYPES.vault) });
    const b = await graph({
      query: q(GRAPH_TYPES.vault),
      options: { $skipToken: a.json.$skipToken },
    });
    expect(b.json.$skipToken).toBe(a.json.$skipToken);
  });

  it("counts a quota per token: beyond it 429 with Retry-After and remaining 0; a fault's 429 names its Retry-After", async () => {
    t.arm.estate.setQuota(2, 5_000);
    expect(
      (await graph({ query: q(GRAPH_TYPES.vault) })).headers["x-ms-user-quota-remaining"],
    ).toBe("1");
    expect(
      (await graph({ query: q(GRAPH_TYPES.vault) })).headers["x-ms-user-quota-remaining"],
    ).toBe("0");
    const refused = await graph({ query: q(GRAPH_TYPES.vault) });
    expect(refused.status).toBe(429);
    expect(refused.json.error?.code).toBe("RateLimiting");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(refused.headers["x-ms-user-quota-remaining"]).toBe("0");
    t.arm.estate.setQuota(100);
    t.arm.estate.setFault({ status: 429, retryAfterSeconds: 7 });
    const throttled = await graph({ query: q(GRAPH_TYPES.vault) });
    expect(throttled.status).toBe(429);
    expect(throttled.headers["retry-after"]).toBe("7");
    expect(quotaSpan(3_725_001)).toBe("01:02:06");
  });

  it("answers 403 for a forbidden subscription it is asked for, and leaves its rows out otherwise", async () => {
    seed();
    t.arm.estate.forbidSubscription(S2);
    const named = await graph({ query: q(GRAPH_TYPES.vault), subscriptions: [S1, S2] });
    expect(named.status).toBe(403);
    expect(named.json.error?.code).toBe("AuthorizationFailed");
    expect(named.json.error?.message).toContain(S2);
    expect((await graph({ query: q(GRAPH_TYPES.vault) })).json.data).toEqual([]);
  });

  it("refuses a request without a token (401), a query it does not recognise (400), and holds 50,000 rows and a 5 MB row", async () => {
    expect((await graph({ query: q(GRAPH_TYPES.vault) }, null)).status).toBe(401);
    expect(
      (
        await graph({
          query: "resourcecontainers | where type == 'microsoft.resources/subscriptions'",
        })
      ).status,
    ).toBe(400);
    for (let i = 0; i < 50_000; i++)
      t.arm.estate.addVault({ subscriptionId: S1, resourceGroup: "rg", name: `kv${i}` });
    const first = await graph({ query: q(GRAPH_TYPES.vault), options: { $top: 5000 } });
    expect(first.json).toMatchObject({ totalRecords: 50_000, count: 1000 });
    t.arm.estate.clear();
    t.arm.estate.addRow({
      id: "/x",
      name: "big",
      type: GRAPH_TYPES.vault,
      subscriptionId: S1,
      resourceGroup: "rg",
      location: "westeurope",
      properties: { blob: "x".repeat(5 * 1024 * 1024) },
    });
    const big = await graph({ query: q(GRAPH_TYPES.vault) });
    expect(t.arm.lastAnswerBytes).toBeGreaterThan(5 * 1024 * 1024);
    expect(big.json.count).toBe(1);
  });
});

describe("the simulator's hostile estate rows", () => {
  it("serves odd dates, odd thumbprints and hostile names as they are, a 5 MB row, and 50,000 rows over 50 subscriptions", async () => {
    for (const row of hostileEstateRows(S1)) t.arm.estate.addRow(row);
    const certs = await graph({ query: q(GRAPH_TYPES.appServiceCertificate) });
    const props = certs.json.data?.map((r) => r.properties) ?? [];
    expect(props.map((p) => p.expirationDate)).toEqual(expect.arrayContaining([...HOSTILE_DATES]));
    expect(props.map((p) => p.thumbprint)).toEqual(
      expect.arrayContaining([...HOSTILE_THUMBPRINTS]),
    );
    expect(certs.json.data?.map((r) => r.name)).toContain(HOSTILE_NAME);
    t.arm.estate.clear();
    t.arm.estate.addRow(hugeRow(S1));
    await graph({ query: q(GRAPH_TYPES.vault) });
    expect(t.arm.lastAnswerBytes).toBeGreaterThan(5 * 1024 * 1024);
    t.arm.estate.clear();
    const subs = Array.from(
      { length: 50 },
      (_, i) => `00000000-0000-0000-0000-${String(i).padStart(12, "0")}`,
    );
    for (const row of manyCertificateRows(50_000, subs)) t.arm.estate.addRow(row);
    const page = await graph({
      query: q(GRAPH_TYPES.appServiceCertificate),
      subscriptions: subs.slice(0, 5),
      options: { $top: 1000 },
    });
    expect(page.json).toMatchObject({ totalRecords: 5_000, count: 1000 });
    expect(page.json.$skipToken).toBeDefined();
  });
});
