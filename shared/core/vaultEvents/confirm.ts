import { escapeControl } from "../../lib/text/escapeControl.js";
import type { KeyVaultRead } from "../ports/probes.js";
import { instantText } from "../verification/served.js";
import { type VaultVersion, vaultVersionOf } from "../verification/syncCheck.js";
import type { VaultEvent } from "./vaultEvent.js";

/**
 * What the vault says of an event's version: an event is only a hint, and nothing is done for
 * a version the vault does not hold, or a new version older than the vault's current one (a
 * late or replayed delivery).
 */

export type Confirmation =
  | { readonly kind: "confirmed"; readonly version: VaultVersion; readonly current: VaultVersion }
  | {
      readonly kind: "skip";
      readonly reason: "no-such-version" | "older-version";
      readonly detail: string;
    }
  /** A read failed otherwise: a redelivery may do. */
  | { readonly kind: "unreadable"; readonly detail: string };

const sameVersion = (a: VaultVersion, b: VaultVersion) =>
  a.version !== undefined && b.version !== undefined
    ? a.version.toLowerCase() === b.version.toLowerCase()
    : a.thumbprint.toUpperCase() === b.thumbprint.toUpperCase();

const createdOf = (v: VaultVersion) => v.createdOn ?? v.notBefore;

/**
 * `named`: the vault's read of event.version; `current`: the read of its current version.
 */
export function confirmEvent(
  event: VaultEvent,
  named: KeyVaultRead,
  current: KeyVaultRead,
): Confirmation {
  const where = `${event.vaultName}/${event.certificateName}`;
  const shownWhere = escapeControl(where);
  const v = escapeControl(event.version);
  if (!named.reached && named.failure === "not-found") {
    return {
      kind: "skip",
      reason: "no-such-version",
      detail: `the vault holds no version ${v} of ${shownWhere}`,
    };
  }
  if (!named.reached) {
    return { kind: "unreadable", detail: `reading version ${v}: ${escapeControl(named.detail)}` };
  }
  if (!current.reached) {
    return {
      kind: "unreadable",
      detail: `reading the current version: ${escapeControl(current.detail)}`,
    };
  }
  if (named.version !== undefined && named.version.toLowerCase() !== event.version.toLowerCase()) {
    return {
      kind: "unreadable",
      detail: `asked for version ${v}, the vault answered version ${escapeControl(named.version)}`,
    };
  }
  const version = vaultVersionOf(where, named) as VaultVersion;
  const now = vaultVersionOf(where, current) as VaultVersion;
  if (
    event.kind === "new-version" &&
    !sameVersion(version, now) &&
    createdOf(version).getTime() < createdOf(now).getTime()
  ) {
    return {
      kind: "skip",
      reason: "older-version",
      detail: `version ${v} is older than the vault's current version ${escapeControl(now.version ?? now.thumbprint)}, created ${instantText(createdOf(now))}`,
    };
  }
  return { kind: "confirmed", version, current: now };
}
