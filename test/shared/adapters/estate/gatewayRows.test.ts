import { afterAll, describe, expect, it } from "vitest";
import {
  frontDoorCertificate,
  gatewayCertificates,
  gatewayRow,
  vaultSecretId,
} from "../../../../shared/adapters/estate/gatewayRows.js";
import { opensslBags } from "../../../support/opensslBags.js";

const SUB = "00000000-0000-0000-0000-0000000000aa";
const GW = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/applicationGateways/GW";

describe("Application Gateway and Front Door rows", () => {
  it("each gateway certificate, bound to the listeners that name it; an unused one bound nowhere", () => {
    const row = gatewayRow.parse({
      id: GW,
      subscriptionId: SUB,
      resourceGroup: "rg",
      sslCertificates: [
        {
          name: "Www",
          properties: {
            keyVaultSecretId: "https://Contoso-KV.vault.azure.net/secrets/www/0123abcd",
          },
        },
        { name: "old", properties: { publicCertData: "MIIB" } },
        { notAName: true },
      ],
      httpListeners: [
        {
          id: `${GW}/httpListeners/L1`,
          properties: {
            hostName: "WWW.contoso.test",
            sslCertificate: { id: `${GW}/sslCertificates/Www` },
          },
        },
        { id: `${GW}/httpListeners/L2`, properties: { hostNames: ["a.test", "b.test"] } },
      ],
    });
    const found = gatewayCertificates(row);
    expect(found.map((c) => [c.id, c.keyVaultId, c.boundTo, c.hostNames])).toEqual([
      [
        `${GW.toLowerCase()}/sslcertificates/www`,
        "https://contoso-kv.vault.azure.net/secrets/www",
        [
          {
            kind: "listener",
            resourceId: `${GW.toLowerCase()}/httplisteners/l1`,
            hostName: "www.contoso.test",
          },
        ],
        ["www.contoso.test"],
      ],
      [`${GW.toLowerCase()}/sslcertificates/old`, undefined, [], []],
    ]);
    expect(found.every((c) => c.kind === "application-gateway" && c.subscriptionId === SUB)).toBe(
      true,
    );
  });

  describe("a certificate uploaded as PFX, known by its publicCertData only", () => {
    const bags = opensslBags();
    afterAll(() => bags.close());
    const leaf = bags.selfSigned("pfx", {
      subject: "/CN=pfx.contoso.test/O=Contoso",
      extensions: ["subjectAltName=DNS:PFX.contoso.test,DNS:alt.contoso.test"],
    });
    const rowWith = (sslCertificates: unknown[]) =>
      gatewayRow.parse({
        id: GW,
        subscriptionId: SUB,
        sslCertificates,
        httpListeners: [
          {
            id: `${GW}/httpListeners/L1`,
            properties: {
              hostName: "listened.contoso.test",
              sslCertificate: { id: `${GW}/sslCertificates/bound` },
            },
          },
        ],
      });

    it("shows the leaf's expiry, thumbprint, issuer and names (a listener's names first)", () => {
      const data = bags.pkcs7([leaf]);
      const [bound, idle] = gatewayCertificates(
        rowWith([
          { name: "bound", properties: { publicCertData: data } },
          { name: "idle", properties: { publicCertData: data } },
        ]),
      );
      const facts = {
        thumbprint: leaf.thumbprint,
        notBefore: leaf.notBefore,
        expiresAt: leaf.notAfter,
        issuer: "CN=pfx.contoso.test, O=Contoso",
        subject: "CN=pfx.contoso.test, O=Contoso",
        problems: [],
      };
      expect(bound).toMatchObject({ ...facts, hostNames: ["listened.contoso.test"] });
      expect(idle).toMatchObject({
        ...facts,
        hostNames: ["pfx.contoso.test", "alt.contoso.test"],
        moreHostNames: 0,
      });
    });

    it("data that cannot be read is a problem; a vault's certificate without data is not", () => {
      const found = gatewayCertificates(
        rowWith([
          { name: "bound", properties: { publicCertData: "bm90IGEgY2VydGlmaWNhdGU=" } },
          { name: "huge", properties: { publicCertData: "A".repeat(200_000) } },
          {
            name: "vault",
            properties: { keyVaultSecretId: "https://kv-1.vault.azure.net/secrets/www" },
          },
        ]),
      );
      expect(found.map((c) => [c.name, c.thumbprint, c.expiresAt, c.problems])).toEqual([
        ["bound", undefined, undefined, ["its public certificate data could not be read"]],
        ["huge", undefined, undefined, ["its public certificate data could not be read"]],
        ["vault", undefined, undefined, []],
      ]);
      expect(found[0]?.hostNames).toEqual(["listened.contoso.test"]);
    });
  });

  it("a vault secret id: versions dropped, anything else is none", () => {
    expect(vaultSecretId("https://kv-1.vault.azure.net/secrets/a/")).toBe(
      "https://kv-1.vault.azure.net/secrets/a",
    );
    expect(vaultSecretId("https://evil.test/secrets/a")).toBeUndefined();
    expect(vaultSecretId("javascript:alert(1)")).toBeUndefined();
  });

  it("a Front Door custom domain: its host, its certificate type; managed ones renew themselves", () => {
    const base = {
      id: "/s/Profiles/P/customDomains/D",
      name: "d<b>",
      subscriptionId: SUB,
      hostName: "WWW.x.test",
    };
    const managed = frontDoorCertificate({ ...base, certificateType: "ManagedCertificate" });
    expect(managed).toMatchObject({
      id: "/s/profiles/p/customdomains/d",
      kind: "front-door",
      name: "d<b>",
      hostNames: ["www.x.test"],
      boundTo: [
        {
          kind: "custom-domain",
          resourceId: "/s/profiles/p/customdomains/d",
          hostName: "www.x.test",
        },
      ],
      autoRenew: true,
      problems: [],
    });
    const own = frontDoorCertificate({ ...base, certificateType: "CustomerCertificate" });
    expect(own.autoRenew).toBeUndefined();
    expect(frontDoorCertificate(base).problems).toEqual(["its certificate type is not given"]);
  });
});
