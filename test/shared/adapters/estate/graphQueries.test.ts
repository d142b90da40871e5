import { describe, expect, it } from "vitest";
import {
  APP_SERVICE_CERTIFICATES,
  APPLICATION_GATEWAYS,
  FRONT_DOOR_DOMAINS,
  FRONT_DOOR_SECRETS,
  KEY_VAULTS,
  SITE_BINDINGS,
} from "../../../../shared/adapters/estate/graphQueries.js";

const queries = {
  APP_SERVICE_CERTIFICATES,
  SITE_BINDINGS,
  APPLICATION_GATEWAYS,
  FRONT_DOOR_DOMAINS,
  FRONT_DOOR_SECRETS,
  KEY_VAULTS,
} as const;

describe("the estate's Resource Graph queries", () => {
  it.each([
    [
      "APP_SERVICE_CERTIFICATES",
      "microsoft.web/certificates",
      ["thumbprint", "expirationDate", "hostNames", "keyVaultSecretName"],
    ],
    ["SITE_BINDINGS", "microsoft.web/sites/slots", ["hostNameSslStates", "hostName", "thumbprint"]],
    [
      "APPLICATION_GATEWAYS",
      "microsoft.network/applicationgateways",
      ["sslCertificates", "httpListeners"],
    ],
    ["FRONT_DOOR_DOMAINS", "microsoft.cdn/profiles/customdomains", ["certificateType", "secretId"]],
    [
      "FRONT_DOOR_SECRETS",
      "microsoft.cdn/profiles/secrets",
      ["secretSource.id", "expirationDate", "thumbprint", "certificateAuthority"],
    ],
    ["KEY_VAULTS", "microsoft.keyvault/vaults", ["subscriptionId", "resourceGroup"]],
  ] as const)(
    "%s reads %s with the columns its rows are read by, in a stable order",
    (name, type, columns) => {
      const query = queries[name];
      expect(query).toContain(`type =~ '${type}'`);
      for (const column of columns) expect(query).toContain(column);
      expect(query).toMatch(/\| order by id asc$/);
    },
  );
});
