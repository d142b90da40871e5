import type { VaultVersion } from "../verification/syncCheck.js";
import type { ExpiryVerdict } from "./expiryVerdict.js";
import type { VaultEvent, VaultEventKind } from "./vaultEvent.js";
import type { WatchedCertificate } from "./watchedVaults.js";

/**
 * The webhook message of a vault certificate that will expire with nothing to fix it in time
 * (`at-risk`), or that no account of certsched keeps (`unmanaged`): its content, which the
 * notifier's adapter renders in each format (adapters/notify/vaultAlertMessage.ts).
 */
export interface VaultAlert {
  /** The account whose vault it is; webhook messages name it. */
  readonly account?: string | undefined;
  readonly kind: "at-risk" | "unmanaged";
  /** The event that told it. */
  readonly event: VaultEventKind;
  /** Lower-case, as the event named it (validated). */
  readonly vaultName: string;
  /** The certificate's name in the vault. */
  readonly certificateName: string;
  readonly version: string;
  readonly subscriptionId: string;
  readonly resourceGroup: string;
  /** The version's expiry as the vault says it (not the event's claim). */
  readonly expiresAt: Date;
  /** Why (the expiry verdict's detail): escaped, bounded. */
  readonly detail: string;
  /** The inventory's name when certsched keeps it. */
  readonly managedName?: string | undefined;
}

/** The alert an expiry verdict calls for; undefined for `renewed` and `in-hand`. */
export function vaultAlertOf(input: {
  readonly account?: string | undefined;
  readonly event: VaultEvent;
  readonly version: VaultVersion;
  readonly verdict: ExpiryVerdict;
  readonly certificate?: WatchedCertificate | undefined;
}): VaultAlert | undefined {
  const { event, verdict } = input;
  if (verdict.kind !== "at-risk" && verdict.kind !== "unmanaged") return undefined;
  const managedName = input.certificate?.managed?.certificateName;
  return {
    ...(input.account === undefined ? {} : { account: input.account }),
    kind: verdict.kind,
    event: event.kind,
    vaultName: event.vaultName,
    certificateName: event.certificateName,
    version: event.version,
    subscriptionId: event.subscriptionId,
    resourceGroup: event.resourceGroup,
    expiresAt: input.version.notAfter,
    detail: verdict.detail,
    ...(managedName === undefined ? {} : { managedName }),
  };
}
