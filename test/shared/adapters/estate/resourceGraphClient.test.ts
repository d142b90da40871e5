import http from "node:http";
import type { AddressInfo } from "node:net";
import type { TokenCredential } from "@azure/identity";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createResourceGraphClient } from "../../../../shared/adapters/estate/resourceGraphClient.js";

const TOKEN = "eyJ0eXAiOiJKV1QiLCJhbGciOiJub25lIn0.secret-management-token";
const SUB = "00000000-0000-0000-0000-0000000000aa";
const THUMB = "AB12CD34EF56AB12CD34EF56AB12CD34EF56AB12";

interface Asked {
  query: string;
  skipToken?: string;
  top: number;
  format: string;
  authorization: string | undefined;
  url: string;
}

/** A Resource Graph on loopback: `answer` picks each reply from the query asked. */
let answer: (asked: Asked, res: http.ServerResponse) => void;
const asked: Asked[] = [];
let server: http.Server;
let armUrl: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      const parsed = JSON.parse(body) as {
        query: string;
        options: { $top: number; $skipToken?: string; resultFormat: string };
      };
      const a: Asked = {
        query: parsed.query,
        top: parsed.options.$top,
        format: parsed.options.resultFormat,
        authorization: req.headers.authorization,
        url: req.url ?? "",
        ...(parsed.options.$skipToken ? { skipToken: parsed.options.$skipToken } : {}),
      };
      asked.push(a);
      answer(a, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  armUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  asked.length = 0;
});

const credential: TokenCredential = {
  getToken: async () => ({ token: TOKEN, expiresOnTimestamp: Date.now() + 3_600_000 }),
};
const waits: number[] = [];
const client = (extra: { maxRows?: number } = {}) =>
  createResourceGraphClient({
    armUrl,
    credential,
    timeoutMs: 5000,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...extra,
  });

function json(res: http.ServerResponse, status: number, body: unknown, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
const page = (data: unknown[], $skipToken?: string) => ({
  totalRecords: data.length,
  count: data.length,
  data,
  ...($skipToken ? { $skipToken } : {}),
});
const is = (a: Asked, type: string) => a.query.includes(type);

describe("the Resource Graph client, over a loopback Resource Graph", () => {
  it("asks with the management token, pages by skip token, joins a site's binding to its certificate", async () => {
    answer = (a, res) => {
      if (is(a, "microsoft.keyvault/vaults")) {
        return json(
          res,
          200,
          page([{ id: "/SUBSCRIPTIONS/X/kv", name: "Contoso-KV", subscriptionId: SUB }]),
        );
      }
      if (is(a, "hostNameSslStates")) {
        const site = {
          id: "/subscriptions/x/sites/Web",
          type: "Microsoft.Web/sites",
          subscriptionId: SUB,
        };
        return a.skipToken === undefined
          ? json(
              res,
              200,
              page(
                [
                  {
                    ...site,
                    hostName: "WWW.contoso.test",
                    thumbprint: "ab 12 cd 34 ef 56 ab 12 cd 34 ef 56 ab 12 cd 34 ef 56 ab 12",
                  },
                ],
                "p2",
              ),
            )
          : json(
              res,
              200,
              page([
                {
                  ...site,
                  id: `${site.id}/slots/staging`,
                  type: "Microsoft.Web/sites/slots",
                  hostName: "staging.contoso.test",
                  thumbprint: THUMB.toLowerCase(),
                },
              ]),
            );
      }
      if (is(a, "microsoft.web/certificates")) {
        return json(
          res,
          200,
          page([
            {
              id: "/subscriptions/x/certificates/Cert",
              name: "cert\u001b[31m<b>",
              subscriptionId: SUB,
              resourceGroup: "rg",
              thumbprint: THUMB,
              expirationDate: "2027-01-02T03:04:05",
              issueDate: "2026-01-02T03:04:05+00:00",
              issuer: "CN=R11, O=Let's Encrypt",
              subjectName: "www.contoso.test",
              hostNames: ["www.contoso.test", "contoso.test"],
              keyVaultId:
                "/subscriptions/x/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/Contoso-KV",
              keyVaultSecretName: "WWW",
            },
          ]),
        );
      }
      return json(res, 200, page([]));
    };
    const found = await client().findings();
    expect(asked.every((a) => a.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(asked[0]?.url).toBe(
      "/providers/Microsoft.ResourceGraph/resources?api-version=2022-10-01",
    );
    expect(asked.every((a) => a.top === 1000 && a.format === "objectArray")).toBe(true);
    expect(asked.filter((a) => is(a, "hostNameSslStates")).map((a) => a.skipToken)).toEqual([
      undefined,
      "p2",
    ]);
    expect(found.problems).toEqual([]);
    expect(found.vaults).toEqual([
      { name: "contoso-kv", id: "/subscriptions/x/kv", subscriptionId: SUB },
    ]);
    expect(found.certificates).toEqual([
      {
        id: "/subscriptions/x/certificates/cert",
        kind: "app-service-certificate",
        name: "cert\\u{1b}[31m<b>",
        subscriptionId: SUB,
        resourceGroup: "rg",
        thumbprint: THUMB,
        notBefore: new Date("2026-01-02T03:04:05Z"),
        expiresAt: new Date("2027-01-02T03:04:05Z"),
        issuer: "CN=R11, O=Let's Encrypt",
        subject: "www.contoso.test",
        hostNames: ["www.contoso.test", "contoso.test"],
        moreHostNames: 0,
        keyVaultId: "https://contoso-kv.vault.azure.net/secrets/www",
        boundTo: [
          { kind: "site", resourceId: "/subscriptions/x/sites/web", hostName: "www.contoso.test" },
          {
            kind: "slot",
            resourceId: "/subscriptions/x/sites/web/slots/staging",
            hostName: "staging.contoso.test",
          },
        ],
        problems: [],
      },
    ]);
  });

  it("a Front Door domain bringing its own certificate is joined to its profile secret; the secrets are asked only then", async () => {
    const profile = `/subscriptions/${SUB}/resourceGroups/rg-edge/providers/Microsoft.Cdn/profiles/fd`;
    const vaultSecret = `/subscriptions/${SUB}/resourceGroups/rg-kv/providers/Microsoft.KeyVault/vaults/KV-Edge/secrets/Shop-Cert`;
    const domains = [
      {
        id: `${profile}/customDomains/shop`,
        name: "shop",
        subscriptionId: SUB,
        hostName: "shop.contoso.test",
        certificateType: "CustomerCertificate",
        secretId: `${profile}/secrets/SHOP`,
      },
      {
        id: `${profile}/customDomains/gone`,
        name: "gone",
        subscriptionId: SUB,
        hostName: "gone.contoso.test",
        certificateType: "CustomerCertificate",
        secretId: `${profile}/secrets/deleted`,
      },
    ];
    answer = (a, res) => {
      if (is(a, "microsoft.cdn/profiles/customdomains")) return json(res, 200, page(domains));
      if (is(a, "microsoft.cdn/profiles/secrets")) {
        return json(
          res,
          200,
          page([
            {
              id: `${profile}/secrets/shop`,
              secretType: "CustomerCertificate",
              secretSourceId: vaultSecret,
              expirationDate: "2026-12-20T00:00:00+00:00",
              subject: "shop.contoso.test",
              certificateAuthority: "CN=Some CA",
              thumbprint: THUMB.toLowerCase(),
            },
          ]),
        );
      }
      return json(res, 200, page([]));
    };
    const found = await client().findings();
    const [shop, gone] = found.certificates;
    expect(shop).toMatchObject({
      kind: "front-door",
      hostNames: ["shop.contoso.test"],
      expiresAt: new Date("2026-12-20T00:00:00Z"),
      thumbprint: THUMB,
      issuer: "CN=Some CA",
      keyVaultId: "https://kv-edge.vault.azure.net/secrets/shop-cert",
      problems: [],
    });
    expect(gone?.expiresAt).toBeUndefined();
    expect(gone?.problems).toEqual(["its profile secret could not be read"]);

    // Azure-managed certificates only: no profile secret to read, no query spent on them.
    asked.length = 0;
    const managed = domains.map(({ secretId: _, ...d }) => ({
      ...d,
      certificateType: "ManagedCertificate",
    }));
    answer = (a, res) =>
      json(res, 200, page(is(a, "microsoft.cdn/profiles/customdomains") ? managed : []));
    const quiet = await client().findings();
    expect(quiet.certificates.map((c) => c.autoRenew)).toEqual([true, true]);
    expect(asked.some((a) => is(a, "microsoft.cdn/profiles/secrets"))).toBe(false);
    expect(asked.some((a) => is(a, "microsoft.cdn/profiles/customdomains"))).toBe(true);
  });

  it("a skip token that repeats stops that query with a problem; the others stand", async () => {
    answer = (a, res) =>
      is(a, "microsoft.keyvault/vaults")
        ? json(
            res,
            200,
            page([{ id: `/v/${a.skipToken ?? 0}`, name: "kv", subscriptionId: SUB }], "same"),
          )
        : json(res, 200, page([]));
    const found = await client().findings();
    expect(found.vaults).toHaveLength(2);
    expect(found.problems).toEqual([
      {
        where: "Resource Graph",
        detail: "Key Vaults: the skip token repeated on page 2: stopped there",
      },
    ]);
    expect(asked.length).toBe(2 + 4);
  });

  it("pages that never end stop at 100 with a problem", async () => {
    answer = (a, res) =>
      is(a, "microsoft.keyvault/vaults")
        ? json(res, 200, page([], `t${asked.length}`))
        : json(res, 200, page([]));
    const found = await client().findings();
    expect(found.problems.map((p) => p.detail)).toEqual([
      "Key Vaults: stopped after 100 pages (the most read per query)",
    ]);
    expect(asked.filter((a) => is(a, "microsoft.keyvault/vaults"))).toHaveLength(100);
  });

  it("rows past the run's bound, and rows of more than 1 MiB, are left out and counted", async () => {
    answer = (a, res) => {
      if (!is(a, "microsoft.keyvault/vaults")) return json(res, 200, page([]));
      const rows = Array.from({ length: 5 }, (_, i) => ({
        id: `/v/${i}`,
        name: `kv${i}`,
        subscriptionId: SUB,
      }));
      return json(
        res,
        200,
        page([...rows, { id: "/v/big", name: "x".repeat(1024 * 1024 + 1), subscriptionId: SUB }]),
      );
    };
    const found = await client({ maxRows: 3 }).findings();
    expect(found.vaults.map((v) => v.name)).toEqual(["kv0", "kv1", "kv2"]);
    expect(found.truncated).toBe(3);
  });

  it("a spent quota is waited out (hh:mm:ss), and a 429's Retry-After; longer than 60 s is a problem", async () => {
    waits.length = 0;
    let throttledOnce = false;
    answer = (a, res) => {
      if (is(a, "microsoft.keyvault/vaults")) {
        return json(res, 200, page([]), {
          "x-ms-user-quota-remaining": "0",
          "x-ms-user-quota-resets-after": "00:00:04",
        });
      }
      if (is(a, "hostNameSslStates") && !throttledOnce) {
        throttledOnce = true;
        return json(res, 429, { error: { code: "RateLimiting" } }, { "retry-after": "7" });
      }
      if (is(a, "microsoft.web/certificates")) {
        return json(res, 429, { error: { code: "RateLimiting" } }, { "retry-after": "3600" });
      }
      return json(res, 200, page([]));
    };
    const found = await client().findings();
    expect(waits).toEqual([4000, 7000]);
    expect(found.problems).toEqual([
      {
        where: "Resource Graph",
        status: 429,
        detail:
          "App Service certificates: throttled (429 Too Many Requests, retry after 3600 s): stopped; waits longer than 60 s are not honoured",
      },
    ]);
  });

  it("403 names the scope to grant, and never the token", async () => {
    answer = (a, res) =>
      is(a, "microsoft.web/certificates")
        ? json(res, 403, {
            error: { code: "AuthorizationFailed", message: `token ${TOKEN} \u0007 may not` },
          })
        : json(res, 200, page([]));
    const found = await client().findings();
    expect(found.problems).toHaveLength(1);
    expect(found.problems[0]?.status).toBe(403);
    expect(found.problems[0]?.detail).toMatch(
      /^App Service certificates: refused \(403\) \(AuthorizationFailed: /,
    );
    expect(found.problems[0]?.detail).toMatch(/grant Reader on them$/);
    expect(JSON.stringify(found)).not.toContain("secret-management-token");
    expect(JSON.stringify(found)).not.toContain("\u0007");
  });

  it("an answer larger than 16 MiB, or not JSON, is a problem for that query alone", async () => {
    answer = (a, res) => {
      if (is(a, "microsoft.keyvault/vaults")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(`{"data":["${"x".repeat(16 * 1024 * 1024)}"]}`);
        return;
      }
      if (is(a, "hostNameSslStates")) {
        res.writeHead(200);
        res.end("<html>");
        return;
      }
      json(res, 200, page([]));
    };
    const found = await client().findings();
    expect(found.problems.map((p) => p.detail)).toEqual([
      "Key Vaults: an answer larger than the most read, or cut short",
      "site bindings: an answer that is not JSON",
    ]);
  });
});
