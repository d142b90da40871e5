import { describe, expect, it } from "vitest";
import { createCertificateInput } from "../../../../shared/core/certificate/createRequest.js";
import type { EstateCertificate } from "../../../../shared/core/estate/estate.js";
import { certificateNameFor, createProposal } from "../../../../shared/core/estate/proposal.js";

const SUB = "00000000-0000-0000-0000-000000000001";

function cert(fields: Partial<EstateCertificate>): EstateCertificate {
  return {
    id: `/subscriptions/${SUB}/resourcegroups/rg/providers/microsoft.web/certificates/c`,
    kind: "app-service-certificate",
    name: "c",
    subscriptionId: SUB,
    hostNames: [],
    moreHostNames: 0,
    boundTo: [],
    problems: [],
    ...fields,
  };
}

/** The proposal is the shape certsched accepts once an operator writes an e-mail address in. */
function expectValidShape(request: object): void {
  const parsed = createCertificateInput.safeParse({ ...request, email: "ops@example.org" });
  expect(parsed.error?.issues).toBeUndefined();
}

describe("createProposal", () => {
  it("proposes Key Vault + DNS for a vault's certificate, the vault named from its id", () => {
    const p = createProposal(
      cert({
        kind: "key-vault",
        id: "https://kv-prod.vault.azure.net/certificates/api",
        hostNames: ["*.contoso.com", "contoso.com"],
      }),
    );
    expect(p.request).toEqual({
      certificateName: "wildcard-contoso-com",
      rootDomain: "*.contoso.com",
      email: "<the e-mail address of the CA account>",
      password: "<a password for the certificate's PFX>",
      isSAN: true,
      cloudSubscriptionId: SUB,
      target: "Cloud Key Vault + DNS",
      challengeType: "dns",
      dnsZoneResourceGroup: "<the resource group of the DNS zone of *.contoso.com>",
      keyVaultName: "kv-prod",
    });
    expect(p.missing).toEqual(["email", "password", "dnsZoneResourceGroup"]);
    expectValidShape(p.request);
  });

  it("proposes Key Vault + DNS for a gateway certificate that comes from a vault secret", () => {
    const p = createProposal(
      cert({
        kind: "application-gateway",
        keyVaultId: "https://kv-net.vault.azure.net/secrets/gw",
        hostNames: ["www.fabrikam.com"],
      }),
    );
    expect(p.request).toMatchObject({
      target: "Cloud Key Vault + DNS",
      keyVaultName: "kv-net",
      isSAN: false,
    });
    expect(p.request.certificateName).toBe("www-fabrikam-com");
  });

  it("proposes App Service + http with the site and slot of its binding", () => {
    const p = createProposal(
      cert({
        hostNames: ["www.contoso.com"],
        boundTo: [
          { kind: "listener", resourceId: "/x/applicationgateways/gw/httplisteners/l" },
          {
            kind: "slot",
            resourceId: `/subscriptions/${SUB}/resourcegroups/web-rg/providers/microsoft.web/sites/shop/slots/staging`,
            hostName: "www.contoso.com",
          },
        ],
      }),
    );
    expect(p.request).toMatchObject({
      target: "Cloud App Service",
      challengeType: "http",
      cloudAppServiceResourceGroup: "web-rg",
      cloudAppServiceName: "shop/staging",
      cloudAppServiceSlotName: "staging",
      cloudAppServicePlanName: "<the App Service plan of shop>",
    });
    expect(p.missing).toEqual([
      "email",
      "password",
      "cloudAppServicePlanName",
      "cloudAppServicePlanResourceGroup",
    ]);
    expectValidShape(p.request);
  });

  it("writes a placeholder for every value it cannot know: no host names, no site", () => {
    const p = createProposal(cert({ moreHostNames: 0 }));
    expect(p.missing).toEqual([
      "certificateName",
      "rootDomain",
      "email",
      "password",
      "cloudAppServicePlanName",
      "cloudAppServicePlanResourceGroup",
      "cloudAppServiceResourceGroup",
      "cloudAppServiceName",
    ]);
    for (const field of p.missing)
      expect(p.request[field as keyof typeof p.request]).toMatch(/^<.+>$/);
    expect(p.request).toMatchObject({ isSAN: false, cloudAppServiceSlotName: "" });
    expectValidShape(p.request);
  });

  it("takes the host name a binding serves when the certificate lists none, and skips invalid names", () => {
    const p = createProposal(
      cert({
        hostNames: ["<b>x</b>"],
        boundTo: [
          {
            kind: "site",
            resourceId: "/subscriptions/s/resourcegroups/g/providers/microsoft.web/sites/a",
            hostName: "A.Example.org",
          },
        ],
      }),
    );
    expect(p.request).toMatchObject({
      rootDomain: "a.example.org",
      cloudAppServiceName: "a",
      cloudAppServiceSlotName: "",
    });
  });

  it("is a SAN request when more names were found than kept", () => {
    expect(
      createProposal(cert({ hostNames: ["a.example.org"], moreHostNames: 1 })).request.isSAN,
    ).toBe(true);
  });

  it.each([
    ["*.contoso.com", "wildcard-contoso-com"],
    ["www.contoso.com", "www-contoso-com"],
    ["localhost", "localhost"],
  ])("names %s %s", (host, name) => expect(certificateNameFor(host)).toBe(name));
});
