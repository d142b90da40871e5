import { describe, expect, it } from "vitest";
import {
  frontDoorSecrets,
  vaultSecretOfArmId,
  withFrontDoorSecret,
} from "../../../../shared/adapters/estate/frontDoorSecrets.js";
import type { EstateCertificate } from "../../../../shared/core/estate/estate.js";

/** A Front Door domain's own certificate, read from its profile secret. */

const VAULT_SECRET =
  "/subscriptions/s/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/KV-1/secrets/Www";
const domain: EstateCertificate = {
  id: "/s/profiles/p/customdomains/d",
  kind: "front-door",
  name: "d",
  subscriptionId: "s",
  hostNames: [],
  moreHostNames: 0,
  boundTo: [{ kind: "custom-domain", resourceId: "/s/profiles/p/customdomains/d" }],
  problems: [],
};

describe("a Key Vault secret's ARM id as the estate keys it", () => {
  it("vault and name lower-case, the version dropped", () => {
    expect(vaultSecretOfArmId(VAULT_SECRET)).toBe("https://kv-1.vault.azure.net/secrets/www");
    expect(vaultSecretOfArmId(`${VAULT_SECRET}/0123abcd`)).toBe(
      "https://kv-1.vault.azure.net/secrets/www",
    );
  });

  it("anything else is none: another provider, a URL, a vault name Key Vault cannot have", () => {
    expect(vaultSecretOfArmId(VAULT_SECRET.replace("KeyVault", "Storage"))).toBeUndefined();
    expect(vaultSecretOfArmId("https://kv-1.vault.azure.net/secrets/www")).toBeUndefined();
    expect(vaultSecretOfArmId(VAULT_SECRET.replace("KV-1", "k<b>"))).toBeUndefined();
    expect(vaultSecretOfArmId(undefined)).toBeUndefined();
  });
});

describe("withFrontDoorSecret", () => {
  const secrets = frontDoorSecrets([
    {
      id: "/S/Profiles/P/Secrets/Own",
      secretSourceId: VAULT_SECRET,
      expirationDate: "2027-02-03T04:05:06",
      subject: "CN=<script>",
      certificateAuthority: "CA\u001b[2J",
      thumbprint: "ab:12:cd:34:ef:56:ab:12:cd:34:ef:56:ab:12:cd:34:ef:56:ab:12",
      subjectAlternativeNames: ["WWW.x.test", "x.test"],
    },
  ]);

  it("takes expiry, issuer, thumbprint, subject, names and vault from the secret (ids in any case)", () => {
    const joined = withFrontDoorSecret(domain, "/s/profiles/p/secrets/OWN", secrets);
    expect(joined).toMatchObject({
      expiresAt: new Date("2027-02-03T04:05:06Z"),
      thumbprint: "AB12CD34EF56AB12CD34EF56AB12CD34EF56AB12",
      issuer: "CA\\u{1b}[2J",
      subject: "CN=<script>",
      hostNames: ["cn=<script>", "www.x.test", "x.test"],
      keyVaultId: "https://kv-1.vault.azure.net/secrets/www",
      problems: [],
    });
  });

  it("the domain's own host name stays its name", () => {
    const named = { ...domain, hostNames: ["shop.x.test"] };
    expect(withFrontDoorSecret(named, "/s/profiles/p/secrets/own", secrets).hostNames).toEqual([
      "shop.x.test",
    ]);
  });

  it("no secret named: unchanged; a secret not found: a problem, the rest unchanged", () => {
    expect(withFrontDoorSecret(domain, undefined, secrets)).toBe(domain);
    expect(withFrontDoorSecret(domain, " ", secrets)).toBe(domain);
    const missing = withFrontDoorSecret(domain, "/s/profiles/p/secrets/other", secrets);
    expect(missing).toEqual({ ...domain, problems: ["its profile secret could not be read"] });
  });
});
