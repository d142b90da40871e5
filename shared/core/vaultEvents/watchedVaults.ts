import { escapeControl } from "../../lib/text/escapeControl.js";
import { watchKey } from "../inventory/watch.js";
import type { WatchVault } from "../inventory/watchVaults.js";
import type { InventoryRecord } from "../ports/inventory.js";
import { recordVault } from "../verification/vaultBindings.js";
import type { VaultEvent } from "./vaultEvent.js";

/**
 * Which vaults an account watches, and which of their certificates it knows: the Key Vault
 * records of its inventory (certificates certsched renews into a vault) and CERTSCHED_WATCH's
 * mapped entries (`vault/certificate=host`). An event from any other vault is not acted on.
 */

export interface WatchedCertificate {
  /** As the inventory (or CERTSCHED_WATCH) writes it. */
  readonly keyVaultName: string;
  /** The certificate's name in the vault. */
  readonly nameInVault: string;
  /** Inventory names bound to it: the service's certificateName and `watch:host` entries mapped to it. */
  readonly names: readonly string[];
  /** The service's record when certsched renews it (target Key Vault); undefined: only watched. */
  readonly managed?: InventoryRecord | undefined;
}

export interface WatchedVault {
  /** Lower-case. */
  readonly vaultName: string;
  /** Subscriptions the inventory says the vault is in (cloudSubscriptionId, lower-case); empty: not known. */
  readonly subscriptionIds: ReadonlySet<string>;
  /** By the certificate's name in the vault, lower-case. */
  readonly certificates: ReadonlyMap<string, WatchedCertificate>;
}

interface Building {
  readonly subscriptionIds: Set<string>;
  readonly certificates: Map<string, WatchedCertificate>;
}

/** The watched vaults by lower-case name. */
export function watchedVaultsOf(
  records: readonly InventoryRecord[],
  watchVaults: readonly WatchVault[],
): ReadonlyMap<string, WatchedVault> {
  const vaults = new Map<string, Building>();
  const add = (
    keyVaultName: string,
    nameInVault: string,
    names: readonly string[],
    managed?: InventoryRecord,
  ): Building => {
    const vault = keyVaultName.toLowerCase();
    const building = vaults.get(vault) ?? { subscriptionIds: new Set(), certificates: new Map() };
    vaults.set(vault, building);
    const key = nameInVault.toLowerCase();
    const known = building.certificates.get(key);
    building.certificates.set(key, {
      keyVaultName: known?.keyVaultName ?? keyVaultName,
      nameInVault: known?.nameInVault ?? nameInVault,
      names: [...new Set([...(known?.names ?? []), ...names])],
      managed: known?.managed ?? managed,
    });
    return building;
  };
  for (const record of records) {
    const target = recordVault(record);
    if (target === undefined) continue;
    const nameInVault = target.keyVaultCertificateName || target.certificateName;
    const building = add(target.keyVaultName, nameInVault, [record.certificateName], record);
    if (record.cloudSubscriptionId) {
      building.subscriptionIds.add(record.cloudSubscriptionId.toLowerCase());
    }
  }
  for (const w of watchVaults) {
    add(w.keyVaultName, w.keyVaultCertificateName, w.endpoints.map(watchKey));
  }
  return new Map(
    [...vaults].map(([vaultName, b]) => [
      vaultName,
      { vaultName, subscriptionIds: b.subscriptionIds, certificates: b.certificates },
    ]),
  );
}

export type EventMatch =
  | {
      readonly kind: "watched";
      readonly vault: WatchedVault;
      /** The certificate when the account knows it; undefined: a certificate of a watched vault it does not. */
      readonly certificate?: WatchedCertificate | undefined;
    }
  | { readonly kind: "not-watched"; readonly detail: string };

/** Whether the account watches the event's vault (in the event's subscription). */
export function matchEvent(
  event: VaultEvent,
  watched: ReadonlyMap<string, WatchedVault>,
): EventMatch {
  const vaultName = event.vaultName.toLowerCase();
  const vault = watched.get(vaultName);
  const shownVault = escapeControl(vaultName);
  if (vault === undefined) {
    return { kind: "not-watched", detail: `vault ${shownVault} is not watched by this account` };
  }
  const subscription = event.subscriptionId.toLowerCase();
  if (vault.subscriptionIds.size > 0 && !vault.subscriptionIds.has(subscription)) {
    return {
      kind: "not-watched",
      detail: `vault ${shownVault} is watched in subscription ${[...vault.subscriptionIds].sort().join(", ")}, not in subscription ${escapeControl(subscription)} the event comes from`,
    };
  }
  return {
    kind: "watched",
    vault,
    certificate: vault.certificates.get(event.certificateName.toLowerCase()),
  };
}
