import { z } from "zod";
import type {
  InventoryRecord,
  InventorySource,
  VerificationRecord,
} from "../../../core/ports/inventory.js";
import { INVENTORY_STATUSES } from "../../../core/verification/judge.js";
import { redactRecordStrings } from "../../../lib/redact/redactStrings.js";
import { parseOrThrow } from "../../../lib/zodProblems.js";
import { nameKey } from "../nameKey.js";
import { ariJson, fromAriJson } from "./ariJson.js";
import { fromPreflightJson, preflightJson, preflightSchema } from "./preflightJson.js";
import { instant, jsonText } from "./rowText.js";
import { ctHashesJson, ctHashSchema, receiptFrom, receiptJson } from "./servedJson.js";

/**
 * The inventory's Table storage row, and the mappers both ways. One partition (the inventory is
 * hundreds of rows, read whole by every verification run); the row key is made from the
 * certificate name (inventoryRowKey), which the row also keeps whole. A row read back is input
 * like any other: validated, and named in `invalid` when it is not right.
 */

export const INVENTORY_PARTITION = "inventory";
/** Longest text kept in one property (a property holds at most 64 KiB). */
export const MAX_TEXT = 1000;
/** SAN names kept per certificate. */
export const MAX_SAN_NAMES = 100;

export const INVENTORY_SOURCES: readonly InventorySource[] = [
  "due-list",
  "created",
  "renewed",
  "get",
  "watch",
];
const VERIFICATION_STATUSES = INVENTORY_STATUSES;

/**
 * The row key of a certificate: its name escaped for a key, or, when that is longer than a key
 * holds, its head and hash (shared/adapters/storage/nameKey.ts). Rows written before keep their keys.
 */
export function inventoryRowKey(certificateName: string): string {
  return nameKey(certificateName);
}

export interface InventoryRow {
  partitionKey: string;
  rowKey: string;
  certificateName: string;
  certificateId?: number;
  subscriptionId?: string;
  target?: string;
  renewal?: string;
  rootDomain?: string;
  /** JSON array of names. */
  sanNames?: string;
  keyVaultName?: string;
  keyVaultCertificateName?: string;
  serviceExpiry?: string;
  challengeType?: string;
  cloudSubscriptionId?: string;
  dnsZoneResourceGroup?: string;
  appServiceResourceGroup?: string;
  appServiceName?: string;
  appServiceSlot?: string;
  source: InventorySource;
  firstSeen: string;
  lastSeen: string;
  /** JSON object: the last VerificationRecord, dates as ISO-8601. */
  verification?: string;
  /** JSON object: the last preflight (rows/preflightJson.ts). */
  preflight?: string;
  /** JSON object: the CA's renewal information (rows/ariJson.ts). */
  ari?: string;
}

const cut = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text);

/** A SHA-1 thumbprint as kept: 40 upper-case hex. */
const SHA1_HEX = /^[0-9A-F]{40}$/;
const sha1Schema = z.string().regex(SHA1_HEX).optional().catch(undefined);

/** The row's `verification` property: the latest verification, dates as ISO-8601. */
export function verificationJson(v: VerificationRecord): string {
  return JSON.stringify({
    at: v.at.toISOString(),
    status: v.status,
    ...(v.critical === undefined ? {} : { critical: v.critical }),
    source: v.source,
    domain: cut(v.domain),
    ...(v.servedNotAfter ? { servedNotAfter: v.servedNotAfter.toISOString() } : {}),
    ...(v.daysLeft === undefined ? {} : { daysLeft: v.daysLeft }),
    ...(v.issuer === undefined ? {} : { issuer: cut(v.issuer) }),
    ...(v.thumbprint === undefined ? {} : { thumbprint: v.thumbprint }),
    ...(v.serial === undefined ? {} : { serial: cut(v.serial) }),
    ...(v.notBefore ? { notBefore: v.notBefore.toISOString() } : {}),
    ...(v.version === undefined ? {} : { version: cut(v.version) }),
    ...ctHashesJson(v),
    ...(v.sha1Thumbprint !== undefined && SHA1_HEX.test(v.sha1Thumbprint)
      ? { sha1Thumbprint: v.sha1Thumbprint }
      : {}),
    ...(v.receipt ? { receipt: receiptJson(v.receipt) } : {}),
    detail: cut(v.detail),
    ...(v.unreachableSince ? { unreachableSince: v.unreachableSince.toISOString() } : {}),
  });
}

export function toInventoryRow(r: InventoryRecord): InventoryRow {
  const text = (value: string | undefined) => (value === undefined ? undefined : cut(value));
  const optional = {
    certificateId: r.id,
    subscriptionId: text(r.subscriptionId),
    target: text(r.target),
    renewal: text(r.renewal),
    rootDomain: text(r.rootDomain),
    sanNames:
      r.sanNames === undefined
        ? undefined
        : JSON.stringify(r.sanNames.slice(0, MAX_SAN_NAMES).map(cut)),
    keyVaultName: text(r.keyVaultName),
    keyVaultCertificateName: text(r.keyVaultCertificateName),
    serviceExpiry: r.serviceExpiry?.toISOString(),
    challengeType: text(r.challengeType),
    cloudSubscriptionId: text(r.cloudSubscriptionId),
    dnsZoneResourceGroup: text(r.dnsZoneResourceGroup),
    appServiceResourceGroup: text(r.appServiceResourceGroup),
    appServiceName: text(r.appServiceName),
    appServiceSlot: text(r.appServiceSlot),
    verification: r.lastVerification ? verificationJson(r.lastVerification) : undefined,
    preflight: r.lastPreflight ? preflightJson(r.lastPreflight) : undefined,
    ari: r.ari ? ariJson(r.ari) : undefined,
  };
  return {
    partitionKey: INVENTORY_PARTITION,
    rowKey: inventoryRowKey(r.certificateName),
    certificateName: r.certificateName,
    source: r.source,
    firstSeen: r.firstSeen.toISOString(),
    lastSeen: r.lastSeen.toISOString(),
    ...(Object.fromEntries(
      Object.entries(optional).filter(([, value]) => value !== undefined),
    ) as Partial<InventoryRow>),
  };
}

const verificationSchema = z.object({
  at: instant,
  status: z.enum(VERIFICATION_STATUSES),
  critical: z.boolean().optional(),
  source: z.enum(["tls", "keyvault"]),
  domain: z.string(),
  servedNotAfter: instant.optional(),
  daysLeft: z.number().int().optional(),
  issuer: z.string().optional(),
  thumbprint: z.string().optional(),
  serial: z.string().optional(),
  notBefore: instant.optional(),
  version: z.string().optional(),
  pubkeySha256: ctHashSchema,
  tbsSha256: ctHashSchema,
  // Absent from rows written before it was kept; one that is not 40 hex reads as absent.
  sha1Thumbprint: sha1Schema,
  // A receipt that is not right reads as absent, not as an invalid row.
  receipt: z.unknown().optional(),
  detail: z.string(),
  unreachableSince: instant.optional(),
});

const rowSchema = z
  .object({
    rowKey: z.string(),
    certificateName: z.string().min(1, { message: "must not be empty" }),
    certificateId: z.number().int().optional(),
    subscriptionId: z.string().optional(),
    target: z.string().optional(),
    renewal: z.string().optional(),
    rootDomain: z.string().optional(),
    sanNames: jsonText(z.array(z.string())).optional(),
    keyVaultName: z.string().optional(),
    keyVaultCertificateName: z.string().optional(),
    serviceExpiry: instant.optional(),
    challengeType: z.string().optional(),
    cloudSubscriptionId: z.string().optional(),
    dnsZoneResourceGroup: z.string().optional(),
    appServiceResourceGroup: z.string().optional(),
    appServiceName: z.string().optional(),
    appServiceSlot: z.string().optional(),
    source: z.enum(INVENTORY_SOURCES as [InventorySource, ...InventorySource[]], {
      error: `must be one of ${INVENTORY_SOURCES.join(", ")}`,
    }),
    firstSeen: instant,
    lastSeen: instant,
    verification: jsonText(verificationSchema).optional(),
    preflight: jsonText(preflightSchema).optional(),
    ari: z.string().optional(),
  })
  .superRefine((row, ctx) => {
    // A row whose key names another certificate would be found under the wrong name.
    if (row.rowKey !== inventoryRowKey(row.certificateName)) {
      ctx.addIssue({
        code: "custom",
        path: ["certificateName"],
        message: "must be the certificate the row key stands for",
      });
    }
  });

/** A stored row; throws a ValidationError naming each field that is not right. */
export function fromInventoryRow(stored: Record<string, unknown>, table: string): InventoryRecord {
  // Read back, a row is redacted before anything else sees it: another process may have
  // written it, with tokens this one never held (they are found by their shape).
  const row = redactRecordStrings(stored);
  const r = parseOrThrow(rowSchema, row, `inventory row ${String(row.rowKey)} in table ${table}`);
  const v = r.verification;
  const lastVerification: VerificationRecord | undefined = v && {
    at: v.at,
    status: v.status,
    source: v.source,
    domain: v.domain,
    detail: v.detail,
    ...(v.critical === undefined ? {} : { critical: v.critical }),
    ...(v.servedNotAfter ? { servedNotAfter: v.servedNotAfter } : {}),
    ...(v.daysLeft === undefined ? {} : { daysLeft: v.daysLeft }),
    ...(v.issuer === undefined ? {} : { issuer: v.issuer }),
    ...(v.thumbprint === undefined ? {} : { thumbprint: v.thumbprint }),
    ...(v.serial === undefined ? {} : { serial: v.serial }),
    ...(v.notBefore ? { notBefore: v.notBefore } : {}),
    ...(v.version === undefined ? {} : { version: v.version }),
    ...(v.pubkeySha256 === undefined ? {} : { pubkeySha256: v.pubkeySha256 }),
    ...(v.tbsSha256 === undefined ? {} : { tbsSha256: v.tbsSha256 }),
    ...(v.sha1Thumbprint === undefined ? {} : { sha1Thumbprint: v.sha1Thumbprint }),
    ...receiptOf(v.receipt),
    ...(v.unreachableSince ? { unreachableSince: v.unreachableSince } : {}),
  };
  const record: InventoryRecord = {
    certificateName: r.certificateName,
    source: r.source,
    firstSeen: r.firstSeen,
    lastSeen: r.lastSeen,
    ...(r.certificateId === undefined ? {} : { id: r.certificateId }),
    ...(r.subscriptionId === undefined ? {} : { subscriptionId: r.subscriptionId }),
    ...(r.target === undefined ? {} : { target: r.target }),
    ...(r.renewal === undefined ? {} : { renewal: r.renewal }),
    ...(r.rootDomain === undefined ? {} : { rootDomain: r.rootDomain }),
    ...(r.sanNames === undefined ? {} : { sanNames: r.sanNames }),
    ...(r.keyVaultName === undefined ? {} : { keyVaultName: r.keyVaultName }),
    ...(r.keyVaultCertificateName === undefined
      ? {}
      : { keyVaultCertificateName: r.keyVaultCertificateName }),
    ...(r.serviceExpiry === undefined ? {} : { serviceExpiry: r.serviceExpiry }),
    ...optionalTexts(r),
    ...(lastVerification ? { lastVerification } : {}),
    ...(r.preflight ? { lastPreflight: fromPreflightJson(r.preflight) } : {}),
    ...ariOf(r.ari),
  };
  return record;
}

function receiptOf(stored: unknown): Pick<VerificationRecord, "receipt"> {
  const receipt = receiptFrom(stored);
  return receipt ? { receipt } : {};
}

/** The row's ARI, when it reads as one (a bad property is absent: the CA is asked again). */
function ariOf(text: string | undefined): Partial<InventoryRecord> {
  const ari = fromAriJson(text);
  return ari ? { ari } : {};
}

/** The fields preflight reads, each left out when the row has none. */
const PREFLIGHT_FIELDS = [
  "challengeType",
  "cloudSubscriptionId",
  "dnsZoneResourceGroup",
  "appServiceResourceGroup",
  "appServiceName",
  "appServiceSlot",
] as const;

function optionalTexts(
  r: Partial<Record<(typeof PREFLIGHT_FIELDS)[number], string>>,
): Partial<InventoryRecord> {
  return Object.fromEntries(
    PREFLIGHT_FIELDS.flatMap((name) => (r[name] === undefined ? [] : [[name, r[name]]])),
  );
}
