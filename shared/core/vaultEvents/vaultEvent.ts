/**
 * Key Vault's certificate events, as Event Grid delivers them (its own schema or CloudEvents
 * 1.0), once read and checked: what certsched acts on. Nothing here is trusted until the vault
 * confirms it; the payload's dates are shown, never used to decide.
 */

/** The three Key Vault certificate events certsched takes. */
export type VaultEventKind = "new-version" | "near-expiry" | "expired";

/** Event Grid's event types for them, by kind. */
export const VAULT_EVENT_TYPES: Readonly<Record<VaultEventKind, string>> = {
  "new-version": "Microsoft.KeyVault.CertificateNewVersionCreated",
  "near-expiry": "Microsoft.KeyVault.CertificateNearExpiry",
  expired: "Microsoft.KeyVault.CertificateExpired",
};

/** Bounds on what one event may be; beyond them it is refused. */
export const MAX_EVENT_BYTES = 64 * 1024;
/** At most this many events are read from one delivery; the rest are refused, counted. */
export const MAX_EVENTS_PER_DELIVERY = 10_000;
/** An event id longer than this is refused (Event Grid's are GUIDs). */
export const MAX_EVENT_ID = 128;

/** One Key Vault certificate event, read and checked (names validated, lower-cased where Azure ignores case). */
export interface VaultEvent {
  /** The event's id (Event Grid `id`, CloudEvents `id`): escaped, at most MAX_EVENT_ID. */
  readonly id: string;
  readonly kind: VaultEventKind;
  readonly schema: "eventgrid" | "cloudevents";
  /** The vault's name, lower-case (`data.VaultName`, which must agree with the topic). */
  readonly vaultName: string;
  /** The certificate's name in the vault (`data.ObjectName`), as written. */
  readonly certificateName: string;
  /** The version the event names (`data.Version`). */
  readonly version: string;
  /** From the topic (`/subscriptions/{id}/resourceGroups/{rg}/providers/Microsoft.KeyVault/vaults/{name}`). */
  readonly subscriptionId: string;
  readonly resourceGroup: string;
  /** When Event Grid says it happened; undefined when absent or unreadable. */
  readonly eventTime?: Date | undefined;
  /** The payload's NBF / EXP (Unix seconds in the event): shown to people, never acted on. */
  readonly claimedNotBefore?: Date | undefined;
  readonly claimedExpiry?: Date | undefined;
}

/** Why an event is not acted on. */
export type SkipReason =
  /** Not a certificate event certsched takes (another type, another object type). */
  | "unknown-type"
  /** Not readable: malformed, a field missing or of the wrong shape, too large, bad names. */
  | "malformed"
  /** A vault (or its subscription) no account watches. */
  | "not-watched"
  /** The vault does not hold the version the event names. */
  | "no-such-version"
  /** The version is not the vault's current one and older than it (delivered late). */
  | "older-version"
  /** This event (or another for the same version and kind) was handled already. */
  | "duplicate";

/** What reading one delivered item gave. */
export type ReadEvent =
  | { readonly kind: "event"; readonly event: VaultEvent }
  | {
      readonly kind: "skipped";
      readonly reason: Extract<SkipReason, "unknown-type" | "malformed">;
      /** One line for people: escaped, bounded (it names the field and the rule when malformed). */
      readonly detail: string;
      /** The event's id when one could be read (escaped, bounded). */
      readonly id?: string | undefined;
    };

/**
 * The key one event's work is claimed under, per account: one per version and kind, so a
 * duplicate or a redelivery of the same event does nothing twice.
 */
export const eventKey = (
  e: Pick<VaultEvent, "vaultName" | "certificateName" | "version" | "kind">,
) => `${e.vaultName}/${e.certificateName}/${e.version}/${e.kind}`.toLowerCase();
