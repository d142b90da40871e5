import { describe, expect, it } from "vitest";
import { KEY_VAULT } from "../../../../shared/core/certificate/fields.js";
import { parseWatchVault, type WatchVault } from "../../../../shared/core/inventory/watchVaults.js";
import type { InventoryRecord } from "../../../../shared/core/ports/inventory.js";
import { matchEvent, watchedVaultsOf } from "../../../../shared/core/vaultEvents/watchedVaults.js";
import { SAMPLE_SUBSCRIPTION, sampleEvent } from "../../../support/vaultEvents.js";

/**
 * The vaults an account watches (watchedVaults.ts): its Key Vault records and CERTSCHED_WATCH's
 * mapped entries; an event from another vault, or from another subscription, is not watched.
 */

const T = new Date("2026-11-01T00:00:00Z");

const record = (
  fields: Partial<InventoryRecord> & { certificateName: string },
): InventoryRecord => ({
  source: "due-list",
  firstSeen: T,
  lastSeen: T,
  target: KEY_VAULT,
  ...fields,
});

const managed = record({
  certificateName: "www",
  keyVaultName: "KV-Contoso",
  keyVaultCertificateName: "www-contoso-example",
  cloudSubscriptionId: SAMPLE_SUBSCRIPTION.toUpperCase(),
});

const mapped = (entry: string): WatchVault => {
  const parsed = parseWatchVault(entry);
  if (typeof parsed === "string") throw new Error(parsed);
  return parsed;
};

describe("watchedVaultsOf", () => {
  it("Key Vault records and mapped entries, by lower-case vault and certificate name", () => {
    const watched = watchedVaultsOf(
      [
        managed,
        record({ certificateName: "api", keyVaultName: "kv-contoso" }),
        record({ certificateName: "app", target: "Cloud App Service", keyVaultName: "kv-app" }),
        record({ certificateName: "nameless", keyVaultName: undefined }),
      ],
      [
        mapped("kv-contoso/WWW-contoso-example=www.contoso.example;shop.contoso.example:8443"),
        mapped("kv-watch/edge=edge.contoso.example"),
      ],
    );
    expect([...watched.keys()].sort()).toEqual(["kv-contoso", "kv-watch"]);
    const contoso = watched.get("kv-contoso");
    expect(contoso?.subscriptionIds).toEqual(new Set([SAMPLE_SUBSCRIPTION]));
    expect(contoso?.certificates.get("www-contoso-example")).toEqual({
      keyVaultName: "KV-Contoso",
      nameInVault: "www-contoso-example",
      names: ["www", "watch:www.contoso.example", "watch:shop.contoso.example:8443"],
      managed,
    });
    // A record without keyVaultCertificateName: the certificate's own name is its name in the vault.
    expect(contoso?.certificates.get("api")?.names).toEqual(["api"]);
    const edge = watched.get("kv-watch");
    expect(edge?.subscriptionIds.size).toBe(0);
    expect(edge?.certificates.get("edge")).toEqual({
      keyVaultName: "kv-watch",
      nameInVault: "edge",
      names: ["watch:edge.contoso.example"],
      managed: undefined,
    });
  });
});

describe("matchEvent", () => {
  const watched = watchedVaultsOf([managed], [mapped("kv-watch/edge=edge.contoso.example")]);

  it("watched, with the certificate when the account knows it (any case)", () => {
    const match = matchEvent(sampleEvent({ certificateName: "WWW-Contoso-Example" }), watched);
    expect(match).toMatchObject({ kind: "watched", certificate: { managed } });
    const unknown = matchEvent(sampleEvent({ certificateName: "other" }), watched);
    expect(unknown).toMatchObject({ kind: "watched", certificate: undefined });
  });

  it("a vault no record names is not watched", () => {
    expect(matchEvent(sampleEvent({ vaultName: "kv-forged" }), watched)).toEqual({
      kind: "not-watched",
      detail: "vault kv-forged is not watched by this account",
    });
  });

  it("another subscription than the inventory's is not watched, naming both", () => {
    const other = "99999999-1111-2222-3333-444444444444";
    expect(matchEvent(sampleEvent({ subscriptionId: other }), watched)).toEqual({
      kind: "not-watched",
      detail: `vault kv-contoso is watched in subscription ${SAMPLE_SUBSCRIPTION}, not in subscription ${other} the event comes from`,
    });
    // A vault only CERTSCHED_WATCH names has no known subscription: any is taken.
    expect(
      matchEvent(
        sampleEvent({ vaultName: "kv-watch", certificateName: "edge", subscriptionId: other }),
        watched,
      ).kind,
    ).toBe("watched");
  });
});
