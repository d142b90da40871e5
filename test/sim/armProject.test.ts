import { describe, expect, it } from "vitest";
import { frontDoorSecretRow } from "../../shared/adapters/estate/frontDoorSecrets.js";
import {
  APPLICATION_GATEWAYS,
  FRONT_DOOR_SECRETS,
  SITE_BINDINGS,
} from "../../shared/adapters/estate/graphQueries.js";
import { frontDoorRows, gatewayRow, siteRow } from "../../sim/arm/armEstate.js";
import { projectRows } from "../../sim/arm/armProject.js";

/** The simulator's Resource Graph answers certsched's queries with the columns they project. */

const SUB = "00000000-0000-4000-8000-000000000001";

describe("projected rows", () => {
  it("a site's TLS bindings: one row per binding with a thumbprint (mv-expand), flat columns", () => {
    const site = siteRow({
      subscriptionId: SUB,
      resourceGroup: "rg",
      name: "app-www",
      bindings: [{ hostName: "www.contoso.com", thumbprint: "AB".repeat(20) }],
    });
    const rows = projectRows(SITE_BINDINGS, [site]);
    expect(rows).toEqual([
      {
        id: site.id,
        type: site.type,
        subscriptionId: SUB,
        hostName: "www.contoso.com",
        sslState: expect.any(String),
        thumbprint: "AB".repeat(20),
      },
    ]);
  });

  it("a gateway's certificates and listeners as top-level columns", () => {
    const gw = gatewayRow({
      subscriptionId: SUB,
      resourceGroup: "rg",
      name: "agw",
      certificates: [{ name: "c", keyVaultSecretId: "https://kv.vault.azure.net/secrets/c" }],
      listeners: [{ name: "l", hostName: "portal.contoso.com", certificate: "c" }],
    });
    const [row] = projectRows(APPLICATION_GATEWAYS, [gw]);
    expect(row).toMatchObject({ id: gw.id, name: "agw", subscriptionId: SUB, resourceGroup: "rg" });
    expect(row?.sslCertificates).toEqual(gw.properties.sslCertificates);
    expect(row?.properties).toBeUndefined();
  });

  it("a Front Door profile secret: its Key Vault source, expiry, issuer and thumbprint, as the adapter reads them", () => {
    const source = `/subscriptions/${SUB}/resourceGroups/rg-kv/providers/Microsoft.KeyVault/vaults/kv/secrets/shop`;
    const rows = frontDoorRows({
      subscriptionId: SUB,
      resourceGroup: "rg",
      profile: "fd",
      name: "shop",
      hostName: "shop.contoso.com",
      secret: {
        name: "shop-secret",
        secretSourceId: source,
        expiresAt: "2027-01-02T03:04:05Z",
        thumbprint: "CD".repeat(20),
      },
    });
    // The secret's row (the simulator filters by type before it projects).
    const projected = projectRows(FRONT_DOOR_SECRETS, rows.slice(1));
    expect(projected).toHaveLength(1);
    expect(frontDoorSecretRow.parse(projected[0])).toMatchObject({
      id: rows[1]?.id,
      secretType: "CustomerCertificate",
      secretSourceId: source,
      expirationDate: "2027-01-02T03:04:05Z",
      thumbprint: "CD".repeat(20),
      certificateAuthority: "Simulated CA",
    });
  });

  it("no project, or one keeping `properties`: the whole rows", () => {
    const gw = gatewayRow({
      subscriptionId: SUB,
      resourceGroup: "rg",
      name: "agw",
      certificates: [],
      listeners: [],
    });
    expect(projectRows("resources | where type =~ 'x'", [gw])).toEqual([gw]);
    expect(projectRows("resources | project id, name, properties | order by id", [gw])).toEqual([
      gw,
    ]);
  });
});
