import { describe, expect, it } from "vitest";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import type { InventoryRecord } from "../../../../shared/core/ports/inventory.js";
import { type Check, plan } from "../../../../shared/core/verification/plan.js";
import {
  addVaults,
  recordVault,
  vaultKey,
  watchedVaults,
} from "../../../../shared/core/verification/vaultBindings.js";

/** Which domains serve a vault certificate, as plan() looks at them. */

const SEEN = new Date("2026-03-01T00:00:00Z");
const KEY_VAULT = "Cloud Key Vault + DNS";

const record = (
  certificateName: string,
  extra: Partial<InventoryRecord> = {},
): InventoryRecord => ({
  certificateName,
  source: "due-list",
  firstSeen: SEEN,
  lastSeen: SEEN,
  ...extra,
});
const watched = (endpoint: string) => record(`watch:${endpoint}`, { source: "watch" });

/** A check as a line: kind, what, whose, and the vault certificates a TLS check is bound to. */
function summary(check: Check): string {
  const owners = check.owners.map((o) => o.certificateName).join(",");
  if (check.kind === "tls") {
    const vaults = (check.vaults ?? []).map(vaultKey).join(",");
    return `tls ${check.endpoint.label} [${owners}]${check.publicOnly ? " public" : ""}${vaults ? ` vault ${vaults}` : ""}`;
  }
  if (check.kind === "vault") return `vault [${owners}]`;
  return `unverifiable ${check.domain} [${owners}]`;
}

const WATCH =
  "www.fabrikam.com,kv-prod/www-contoso=www.contoso.com;api.contoso.com:8443,KV-Prod/WWW-Contoso=www.contoso.com";

describe("vault bindings in the plan", () => {
  it("a Key Vault record: its vault, and its rootDomain and SAN names over TLS, bound to it", () => {
    const kv = record("api-contoso", {
      target: KEY_VAULT,
      keyVaultName: "kv-prod",
      keyVaultCertificateName: "api",
      rootDomain: "api.contoso.com",
      sanNames: ["*.api.contoso.com", "api2.contoso.com"],
    });
    const noDomain = record("bare", { target: KEY_VAULT, keyVaultName: "kv-prod" });
    const noVault = record("lost", { target: KEY_VAULT, rootDomain: "lost.contoso.com" });

    expect(plan([kv, noDomain, noVault]).map(summary)).toEqual([
      "vault [api-contoso]",
      "tls api.contoso.com [api-contoso] public vault kv-prod/api",
      // A wildcard SAN is no address: left out, as for App Service.
      "tls api2.contoso.com [api-contoso] public vault kv-prod/api",
      "vault [bare]",
      "unverifiable lost.contoso.com [lost]",
    ]);
    expect(recordVault(kv)).toEqual({
      keyVaultName: "kv-prod",
      keyVaultCertificateName: "api",
      certificateName: "api-contoso",
    });
    expect(recordVault(record("app", { target: "Cloud App Service", keyVaultName: "x" }))).toBe(
      undefined,
    );
  });

  it("CERTSCHED_WATCH's mapped entries bind their domains; plain entries stay unbound; a name written twice counts once", () => {
    const settings = loadSettings({
      CERTSCHED_BASE_URL: "https://service.invalid",
      CERTSCHED_CLOUD_CREDENTIAL: "managed-identity",
      CERTSCHED_WATCH: WATCH,
    });
    const records = settings.watch.map((e) => watched(e.label));

    expect(plan(records, settings.watchVaults).map(summary)).toEqual([
      "tls www.fabrikam.com [watch:www.fabrikam.com]",
      "tls www.contoso.com [watch:www.contoso.com] vault kv-prod/www-contoso",
      "tls api.contoso.com:8443 [watch:api.contoso.com:8443] vault kv-prod/www-contoso",
    ]);
  });

  it("a domain both a Key Vault record and a mapped entry name is one check, bound to both", () => {
    const kv = record("www-contoso", {
      target: KEY_VAULT,
      keyVaultName: "kv-other",
      rootDomain: "www.contoso.com",
    });
    const mapped = [
      {
        keyVaultName: "kv-prod",
        keyVaultCertificateName: "www-contoso",
        endpoints: [{ host: "www.contoso.com", port: 443, label: "www.contoso.com" }],
      },
    ];

    expect(watchedVaults(mapped).get("www.contoso.com:443")).toHaveLength(1);
    expect(plan([watched("www.contoso.com"), kv], mapped).map(summary)).toEqual([
      "vault [www-contoso]",
      // Watched too: probed wherever it resolves (not public only).
      "tls www.contoso.com [www-contoso,watch:www.contoso.com] vault kv-other/www-contoso,kv-prod/www-contoso",
    ]);
    expect(
      addVaults(
        [{ keyVaultName: "KV", keyVaultCertificateName: "C", certificateName: "c" }],
        [{ keyVaultName: "kv", keyVaultCertificateName: "c", certificateName: "other" }],
      ),
    ).toHaveLength(1);
  });
});
