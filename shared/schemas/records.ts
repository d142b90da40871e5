import { z } from "zod";
import { parseServiceDate } from "../dates.js";
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
 * A certificate record (spec 2.3). Unpopulated fields come as null (siteId as 0); fields the
 * spec does not list are tolerated and dropped, so a service that adds fields does not break us.
 */
export const certificateRecord = z.object({
  certificateName: z.string().min(1),
  rootDomain: nullableText(),
  email: nullableText(),
  challengeType: nullableText(),
  orderUri: nullableText(),
  // Spec 2.3 gap: csrInfo's structure is not shown; keep whatever object comes.
  csrInfo: z.record(z.string(), z.unknown()).nullable().optional().default(null),
  issueDate: serviceDate,
  expiryDate: serviceDate,
  target: z.string(),
  renewal: z.string(),
  id: z.number().int(),
  subscriptionId: z.number().int(),
  password: nullableText(),
  pfxString: nullableText(),
  certificateDownloadUrl: nullableText(),
  cloudSubscriptionId: nullableText(),
  dnsZoneResourceGroup: nullableText(),
  keyVaultName: nullableText(),
  keyVaultCertificateName: nullableText(),
  siteId: z
    .number()
    .int()
    .nullish()
    .transform((v) => v ?? 0),
});
export type CertificateRecord = z.infer<typeof certificateRecord>;

/** The list operation's 200 body (spec 4.3). */
export const certificateList = z.array(certificateRecord);

/** Renew request, v3 (spec 2.2). */
export const renewRequest = z.strictObject({
  certificateName: z.string().min(1),
  accessToken: z.string().min(1),
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
