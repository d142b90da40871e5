import { escapeControl } from "../../lib/text/escapeControl.js";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../../lib/time.js";
import type { KeyVaultRead, ServedCertificate } from "../ports/probes.js";

/**
 * Did the consumers pick up the vault's new version? App Service,
 * Application Gateway and Front Door fetch a Key Vault certificate's new version on their own
 * schedule (App Service: "typically within 24 hours"). A domain bound to a vault certificate
 * that still serves an older certificate than the vault's current version is `pending` within
 * CERTSCHED_SYNC_WINDOW of that version's creation, `not-synced` after it (the contract's slot 9).
 */

/** CERTSCHED_SYNC_WINDOW's default: App Service's "typically within 24 hours". */
export const DEFAULT_SYNC_WINDOW_MS = DAY_MS;

/** The vault's current version, as a domain bound to it is compared with. */
export interface VaultVersion {
  /** `{vault}/{certificate}` as written in the vault (escaped when shown). */
  readonly name: string;
  readonly version: string | undefined;
  /** SHA-256 of the version's certificate, upper-case hex. */
  readonly thumbprint: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** When the version was created in the vault; unset: its notBefore stands in. */
  readonly createdOn: Date | undefined;
}

/** The vault's current version from a read, or undefined when the read failed. */
export function vaultVersionOf(name: string, read: KeyVaultRead): VaultVersion | undefined {
  if (!read.reached) return undefined;
  return {
    name,
    version: read.version,
    thumbprint: read.certificate.thumbprint,
    notBefore: read.certificate.notBefore,
    notAfter: read.certificate.notAfter,
    createdOn: read.createdOn,
  };
}

export interface SyncOptions {
  readonly now: Date;
  /** CERTSCHED_SYNC_WINDOW, ms; unset: DEFAULT_SYNC_WINDOW_MS. */
  readonly syncWindowMs?: number | undefined;
  /** The vault's current version of the certificate the domain is bound to; unset: no check. */
  readonly vault?: VaultVersion | undefined;
}

export interface SyncFinding {
  readonly status: "pending" | "not-synced";
  readonly detail: string;
}

/** "24 h", "90 min", "45 s": a window in the settings' terms (hours up to days on end). */
function span(ms: number): string {
  if (ms >= HOUR_MS && ms % HOUR_MS === 0) return `${ms / HOUR_MS} h`;
  if (ms >= MINUTE_MS && ms % MINUTE_MS === 0) return `${ms / MINUTE_MS} min`;
  return `${Math.round(ms / 1000)} s`;
}

/** The first 16 hex digits of a fingerprint or version: enough to tell them apart. */
const short = (text: string) => `${escapeControl(text.slice(0, 16))}${text.length > 16 ? "…" : ""}`;

/**
 * `pending` / `not-synced` for a served certificate that is not the vault's current version and
 * older than it (its notBefore earlier); undefined otherwise, or with no vault to compare with.
 * A served certificate newer than the vault's (issued elsewhere, or a vault read lagging) is no
 * finding: the domain is not behind the vault. At exactly the window it is `not-synced`, as
 * CERTSCHED_VERIFY_WINDOW's `pending` holds only while `since < window`.
 */
export function notSynced(
  served: ServedCertificate,
  options: SyncOptions,
): SyncFinding | undefined {
  const vault = options.vault;
  if (vault === undefined) return undefined;
  if (served.thumbprint === vault.thumbprint) return undefined;
  if (served.notBefore.getTime() >= vault.notBefore.getTime()) return undefined;
  const windowMs = options.syncWindowMs ?? DEFAULT_SYNC_WINDOW_MS;
  const created = vault.createdOn ?? vault.notBefore;
  const since = options.now.getTime() - created.getTime();
  const version = vault.version
    ? `version ${short(vault.version)} (${short(vault.thumbprint)})`
    : short(vault.thumbprint);
  const what = `serves ${short(served.thumbprint)} (issued ${served.notBefore.toISOString()}) but vault ${escapeControl(vault.name)} holds ${version} since ${created.toISOString()}`;
  if (since < windowMs) {
    return {
      status: "pending",
      detail: `${what}; its consumers may take up to ${span(windowMs)} to pick it up (CERTSCHED_SYNC_WINDOW)`,
    };
  }
  return {
    status: "not-synced",
    detail: `${what} (more than ${span(windowMs)}, CERTSCHED_SYNC_WINDOW): re-sync the App Service certificate from Key Vault (or restart the app), or check that the gateway's / Front Door's identity can read the vault`,
  };
}
