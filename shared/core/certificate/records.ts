import { z } from "zod";
import { parseServiceDate } from "./dates.js";
import { nullableText } from "./fields.js";

/** A service date (no zone designator, UTC), parsed to a Date whatever the machine's zone. */
export const serviceDate = z.string().transform((text, ctx) => {
  const date = parseServiceDate(text);
  if (!date) {
    ctx.addIssue({ code: "custom", message: "must be a date like 2026-12-01T10:00:00.1234567" });
    return z.NEVER;
  }
  return date;
});

/**
 * Longest certificate name certsched accepts from the service, in UTF-16 code units: what one
 * Table storage string property holds (64 KiB of UTF-16), so every table that keeps a name (the
 * ledger, the history, the inventory) keeps it whole. The spec sets no limit; before this bound
 * a record with a longer name made the ledger refuse its row (400), and the sweep, taking that
 * for an unavailable ledger, started no renewal after it. Such a record is now
 * rejected like any other invalid one, naming the field and this rule.
 */
export const MAX_CERTIFICATE_NAME_CHARS = 32_768;

/**
 * The fields of a certificate record (spec 2.3) that certsched reads: to renew it (name, id,
 * subscriptionId, target, renewal, expiry) and to verify it (rootDomain, the vault and the
 * certificate in it). Only these are validated, and strictly.
 */
const usedFields = {
  certificateName: z
    .string()
    .min(1)
    .max(MAX_CERTIFICATE_NAME_CHARS, {
      message: `must be at most ${MAX_CERTIFICATE_NAME_CHARS} characters (what a storage property holds)`,
    }),
  id: z.number().int(),
  subscriptionId: z.number().int(),
  // Any text: the vendor's docs show targets and renewal modes the spec does not list (a
  // DNS-only or stand-alone target, "Manual" renewal); a listed certificate is renewed as listed.
  target: z.string(),
  renewal: z.string(),
  expiryDate: serviceDate,
  rootDomain: nullableText(),
  keyVaultName: nullableText(),
  keyVaultCertificateName: nullableText(),
};

/** The fields of spec 2.3 certsched does not read: kept as sent, whatever their JSON type. */
export const UNUSED_DOCUMENTED_FIELDS = [
  "email",
  "challengeType",
  "orderUri",
  "csrInfo",
  "issueDate",
  "password",
  "pfxString",
  "certificateDownloadUrl",
  "cloudSubscriptionId",
  "dnsZoneResourceGroup",
  "siteId",
] as const;

/**
 * A certificate record (spec 2.3): the fields certsched uses, validated; every other field, the
 * spec's or not, kept as the service sent it and never a reason to reject the record. The
 * vendor's own client reads certificateDownloadUrl as an object of URLs where the spec says
 * "string or null": a record must not become unrenewable over a field certsched never reads.
 * Unpopulated used fields come as null (or are absent) and read as null.
 */
export const certificateRecord = z.looseObject(usedFields);
export type CertificateRecord = z.infer<typeof certificateRecord> & {
  readonly [K in (typeof UNUSED_DOCUMENTED_FIELDS)[number]]?: unknown;
};

/** The list operation's 200 body (spec 4.3). */
export const certificateList = z.array(certificateRecord);

/**
 * Renew request, v3 (spec 2.2), plus the vault token the vendor's renewal function sends for a
 * certificate whose target is the key vault.
 */
export const renewRequest = z.strictObject({
  certificateName: z.string().min(1),
  accessToken: z.string().min(1),
  accessTokenKeyVault: z.string().min(1).optional(),
});
export type RenewRequest = z.infer<typeof renewRequest>;

/** ResourceRequest (spec 2.4): the body of the public list and test operations. */
export const resourceRequest = z.strictObject({
  accessToken: z.string().min(1),
  accessTokenKeyVault: z.string().min(1),
});
export type ResourceRequest = z.infer<typeof resourceRequest>;

/** The certificate as the public renew operation identifies it (spec 2.4). */
export const certificateRef = z.object({
  certificateName: z.string().min(1),
  target: z.string(),
  renewal: z.string(),
  id: z.number().int(),
  subscriptionId: z.number().int(),
});
export type CertificateRef = z.infer<typeof certificateRef>;

/** CertificateRequest (spec 2.4): the body of the public renew operation. */
export const certificateRequest = z.strictObject({
  accessToken: z.string().min(1),
  accessTokenKeyVault: z.string().min(1),
  certificate: certificateRef,
});
export type CertificateRequest = z.infer<typeof certificateRequest>;

/** Epoch seconds sent as a string (spec 2.5: every field of the token response is a string). */
const numericString = z
  .string()
  .regex(/^\d+$/, { error: "must be a string of digits" })
  .transform(Number);

/** The identity provider's token response (spec 2.5), numbers parsed. */
export const tokenResponse = z.object({
  token_type: z.string(),
  expires_in: numericString,
  ext_expires_in: numericString.optional(),
  expires_on: numericString,
  not_before: numericString.optional(),
  resource: z.string(),
  access_token: z.string().min(1),
});
export type TokenResponse = z.infer<typeof tokenResponse>;
