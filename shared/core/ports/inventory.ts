import type { AriRecord } from "../ari/ariRecord.js";
import type { PreflightResult } from "../preflight/preflight.js";
import type { InventoryStatus } from "../verification/judge.js";
import type { Receipt } from "../verification/served.js";
import type { Read } from "./history.js";

/**
 * The inventory: every certificate certsched knows, so it can keep watching a
 * certificate after the service stops listing it as due. Rows live in Table storage next to the
 * ledger. The ledger still decides renewals; the inventory says what to verify and shows it.
 */

/** How certsched came to know a certificate (the latest wins; `firstSeen` keeps the first). */
export type InventorySource = "due-list" | "created" | "renewed" | "get" | "watch";

/** What one verification found, kept with the certificate (or the watched endpoint). */
export interface VerificationRecord {
  readonly at: Date;
  readonly status: InventoryStatus;
  /** True only for an `expiring` certificate below the critical days. */
  readonly critical?: boolean | undefined;
  readonly source: "tls" | "keyvault";
  /** The domain[:port] probed, or `vault/certificate` for a vault check. */
  readonly domain: string;
  readonly servedNotAfter?: Date | undefined;
  readonly daysLeft?: number | undefined;
  readonly issuer?: string | undefined;
  readonly thumbprint?: string | undefined;
  /** The served certificate's serial (upper-case hex), notBefore, and a vault's version id. */
  readonly serial?: string | undefined;
  readonly notBefore?: Date | undefined;
  readonly version?: string | undefined;
  /** The certificate's SPKI and RFC 6962 TBS hashes (64 lower-case hex): how CT issuances are matched. */
  readonly pubkeySha256?: string | undefined;
  readonly tbsSha256?: string | undefined;
  /** SHA-1 of the DER certificate, 40 upper-case hex: the thumbprint Azure shows (estate matching). */
  readonly sha1Thumbprint?: string | undefined;
  /** The renewal in flight and what was served before and after it (its receipt). */
  readonly receipt?: Receipt | undefined;
  /** One line for people, redacted and escaped. */
  readonly detail: string;
  /**
   * When the endpoint first failed to answer in the current run of failures; kept while it stays
   * unreachable, cleared by any reading. The unreachable grace counts from here.
   */
  readonly unreachableSince?: Date | undefined;
}

export interface InventoryRecord {
  /** The key: the service's certificateName, or `watch:host[:port]` for a CERTSCHED_WATCH entry. */
  readonly certificateName: string;
  readonly id?: number | undefined;
  readonly subscriptionId?: string | undefined;
  /** The service's target, as it said it (values beyond the spec's are kept). */
  readonly target?: string | undefined;
  readonly renewal?: string | undefined;
  readonly rootDomain?: string | undefined;
  /** SAN names, when known. */
  readonly sanNames?: readonly string[] | undefined;
  readonly keyVaultName?: string | undefined;
  readonly keyVaultCertificateName?: string | undefined;
  /** The expiry the service last reported. */
  readonly serviceExpiry?: Date | undefined;
  /** `http` or `dns`, as the service (or the create request) said it: what preflight checks. */
  readonly challengeType?: string | undefined;
  /** The cloud subscription holding the resources (spec 2.1/2.3). */
  readonly cloudSubscriptionId?: string | undefined;
  /** The resource group of the DNS zone, for the dns challenge and the vault target. */
  readonly dnsZoneResourceGroup?: string | undefined;
  /**
   * The App Service app from the create request (the due list names none): its resource group,
   * the site (without the slot) and the slot ("" or undefined: production).
   */
  readonly appServiceResourceGroup?: string | undefined;
  readonly appServiceName?: string | undefined;
  readonly appServiceSlot?: string | undefined;
  readonly source: InventorySource;
  readonly firstSeen: Date;
  readonly lastSeen: Date;
  readonly lastVerification?: VerificationRecord | undefined;
  /** What the last preflight found: the sweep consults it, the dashboard shows it. */
  readonly lastPreflight?: PreflightRecord | undefined;
  /** The CA's renewal information (ARI), when its issuer has a directory. */
  readonly ari?: AriRecord | undefined;
}

/** A preflight result as kept with its certificate (the account is the table's). */
export type PreflightRecord = Omit<PreflightResult, "account" | "certificateName">;

/** What a caller knows now; fields left undefined keep their stored value. */
export type InventoryUpdate = Omit<
  InventoryRecord,
  "firstSeen" | "lastSeen" | "lastVerification" | "lastPreflight" | "ari"
> & {
  readonly seenAt: Date;
};

export interface Inventory {
  /** "none": no storage configured; nothing is kept. */
  readonly kind: "table" | "memory" | "none";
  /** Inserts or merges each record (undefined fields keep what is stored). */
  upsert(updates: readonly InventoryUpdate[]): Promise<void>;
  /** Stores the latest verification of a known (or watched) certificate. */
  recordVerification(certificateName: string, verification: VerificationRecord): Promise<void>;
  /** Stores the latest preflight of a known certificate (not kept for an unknown name). */
  recordPreflight(certificateName: string, preflight: PreflightRecord): Promise<void>;
  /** Stores the CA's renewal information of a known certificate; absent: none is kept. */
  recordAri?(certificateName: string, ari: AriRecord): Promise<void>;
  /** Every record, sorted by certificateName. */
  list(): Promise<Read<InventoryRecord>>;
  get(certificateName: string): Promise<InventoryRecord | undefined>;
}

export const noInventory: Inventory = {
  kind: "none",
  upsert: async () => {},
  recordVerification: async () => {},
  recordPreflight: async () => {},
  list: async () => ({ items: [], invalid: [] }),
  get: async () => undefined,
};

/** Merges an update into what is stored: a field the caller does not know keeps its value. */
export function mergeRecord(
  stored: InventoryRecord | undefined,
  update: InventoryUpdate,
): InventoryRecord {
  const { seenAt, ...fields } = update;
  const known = Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined),
  ) as Partial<InventoryRecord>;
  return {
    ...(stored ?? {}),
    ...known,
    certificateName: update.certificateName,
    source: update.source,
    firstSeen: stored?.firstSeen ?? seenAt,
    lastSeen: stored && stored.lastSeen > seenAt ? stored.lastSeen : seenAt,
  };
}

/** In-process inventory (the sandbox without storage, tests of callers). */
export function memoryInventory(): Inventory {
  const rows = new Map<string, InventoryRecord>();
  return {
    kind: "memory",
    upsert: async (updates) => {
      for (const update of updates)
        rows.set(update.certificateName, mergeRecord(rows.get(update.certificateName), update));
    },
    recordVerification: async (name, verification) => {
      const stored = rows.get(name);
      if (stored) rows.set(name, { ...stored, lastVerification: verification });
    },
    recordPreflight: async (name, preflight) => {
      const stored = rows.get(name);
      if (stored) rows.set(name, { ...stored, lastPreflight: preflight });
    },
    recordAri: async (name, ari) => {
      const stored = rows.get(name);
      if (stored) rows.set(name, { ...stored, ari });
    },
    list: async () => ({
      items: [...rows.values()].sort((a, b) => a.certificateName.localeCompare(b.certificateName)),
      invalid: [],
    }),
    get: async (name) => rows.get(name),
  };
}
