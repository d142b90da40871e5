import { z } from "zod";
import type { AriRecord } from "../../../core/ari/ariRecord.js";
import { MAX_EXPLANATION_URL } from "../../../core/ari/renewalInfo.js";
import { instant } from "./rowText.js";

/**
 * The inventory row's `ari` property (ARI, RFC 9773): the CA's last word on the certificate, as
 * JSON, dates ISO-8601, bounded (a property holds 64 KiB). Read back it is validated; a property
 * that is not right reads as absent (the CA is simply asked again), never as an invalid row.
 */

/** Longest problem line kept. */
export const MAX_ARI_PROBLEM = 500;
/** Longest CertID or directory URL kept (Let's Encrypt's CertIDs are under 100 characters). */
const MAX_ID = 512;
const MAX_URL = 2048;

const cut = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

export function ariJson(a: AriRecord): string {
  return JSON.stringify({
    certId: a.certId,
    directoryUrl: a.directoryUrl,
    ...(a.start && a.end ? { start: a.start.toISOString(), end: a.end.toISOString() } : {}),
    ...(a.explanationUrl ? { explanationUrl: a.explanationUrl } : {}),
    askedAt: a.askedAt.toISOString(),
    nextAskAt: a.nextAskAt.toISOString(),
    ...(a.problem === undefined ? {} : { problem: cut(a.problem, MAX_ARI_PROBLEM) }),
    ...(a.reportedAt ? { reportedAt: a.reportedAt.toISOString() } : {}),
  });
}

const httpUrl = z
  .string()
  .max(MAX_EXPLANATION_URL)
  .refine((text) => /^https?:\/\//i.test(text), "must be an http(s) URL");

export const ariSchema = z.object({
  certId: z.string().min(1).max(MAX_ID),
  directoryUrl: z.string().max(MAX_URL),
  start: instant.optional(),
  end: instant.optional(),
  explanationUrl: httpUrl.optional(),
  askedAt: instant,
  nextAskAt: instant,
  problem: z.string().max(MAX_ARI_PROBLEM).optional(),
  reportedAt: instant.optional(),
});

/** The property's record, or undefined when it is not JSON of this shape. */
export function fromAriJson(text: string | undefined): AriRecord | undefined {
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = ariSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const a = parsed.data;
  return {
    certId: a.certId,
    directoryUrl: a.directoryUrl,
    ...(a.start && a.end ? { start: a.start, end: a.end } : {}),
    ...(a.explanationUrl ? { explanationUrl: a.explanationUrl } : {}),
    askedAt: a.askedAt,
    nextAskAt: a.nextAskAt,
    ...(a.problem === undefined ? {} : { problem: a.problem }),
    ...(a.reportedAt ? { reportedAt: a.reportedAt } : {}),
  };
}
