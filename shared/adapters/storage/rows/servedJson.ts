import { z } from "zod";
import { MAX_FACT, type Receipt, type ServedFacts } from "../../../core/verification/served.js";
import { instant } from "./rowText.js";

/**
 * The receipt of a renewal as stored: the served facts before and after,
 * in the inventory row's `verification` property (its `receipt`) and in a history row's `served`
 * property, dates ISO-8601. Read back it is validated; a receipt that is not right reads as
 * absent (it is what history shows, never what a renewal is decided on), and never throws.
 */

/** Longest fingerprint kept: SHA-256 is 64 hex characters; anything longer is not one. */
const MAX_THUMBPRINT = 128;

const cut = (text: string) => (text.length > MAX_FACT ? `${text.slice(0, MAX_FACT - 1)}…` : text);

/** A Certificate Transparency hash as kept: SHA-256, 64 lower-case hex. */
const CT_HASH = /^[0-9a-f]{64}$/;

/**
 * A certificate's CT hashes (`pubkeySha256`, `tbsSha256`) as stored, each only when it is one.
 * Rows written before they were kept have none; read back, a value that is not one reads as
 * absent (ctHashSchema), never as a row or receipt that is not right.
 */
export function ctHashesJson(f: {
  readonly pubkeySha256?: string | undefined;
  readonly tbsSha256?: string | undefined;
}): { pubkeySha256?: string; tbsSha256?: string } {
  return {
    ...(f.pubkeySha256 !== undefined && CT_HASH.test(f.pubkeySha256)
      ? { pubkeySha256: f.pubkeySha256 }
      : {}),
    ...(f.tbsSha256 !== undefined && CT_HASH.test(f.tbsSha256) ? { tbsSha256: f.tbsSha256 } : {}),
  };
}

/** A stored CT hash: undefined when missing or not 64 lower-case hex. */
export const ctHashSchema = z.string().regex(CT_HASH).optional().catch(undefined);

/** The facts as a JSON object (undefined fields left out). */
export function servedFactsJson(f: ServedFacts): Record<string, string> {
  const fields: Record<string, string | undefined> = {
    thumbprint: f.thumbprint.slice(0, MAX_THUMBPRINT),
    serial: f.serial === undefined ? undefined : cut(f.serial),
    issuer: f.issuer === undefined ? undefined : cut(f.issuer),
    notBefore: f.notBefore?.toISOString(),
    notAfter: f.notAfter?.toISOString(),
    version: f.version === undefined ? undefined : cut(f.version),
    ...ctHashesJson(f),
  };
  return Object.fromEntries(
    Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined),
  );
}

const text = z.string().max(MAX_FACT);

export const servedFactsSchema = z.object({
  thumbprint: z
    .string()
    .regex(/^[0-9A-Fa-f]+$/)
    .max(MAX_THUMBPRINT),
  serial: text.optional(),
  issuer: text.optional(),
  notBefore: instant.optional(),
  notAfter: instant.optional(),
  version: text.optional(),
  pubkeySha256: ctHashSchema,
  tbsSha256: ctHashSchema,
});

/** Parsed facts as a record, optional fields left out (not undefined). */
function factsFrom(f: z.output<typeof servedFactsSchema>): ServedFacts {
  return Object.fromEntries(
    Object.entries(f).filter(([, v]) => v !== undefined),
  ) as unknown as ServedFacts;
}

export function receiptJson(r: Receipt): Record<string, unknown> {
  return {
    acceptedAt: r.acceptedAt.toISOString(),
    ...(r.before ? { before: servedFactsJson(r.before) } : {}),
    ...(r.after ? { after: servedFactsJson(r.after) } : {}),
    ...(r.landedAt ? { landedAt: r.landedAt.toISOString() } : {}),
  };
}

const receiptSchema = z.object({
  acceptedAt: instant,
  before: servedFactsSchema.optional(),
  after: servedFactsSchema.optional(),
  landedAt: instant.optional(),
});

/** A stored receipt, or undefined when it is missing or not right. */
export function receiptFrom(stored: unknown): Receipt | undefined {
  const parsed = receiptSchema.safeParse(stored);
  if (!parsed.success) return undefined;
  const r = parsed.data;
  return {
    acceptedAt: r.acceptedAt,
    ...(r.before ? { before: factsFrom(r.before) } : {}),
    ...(r.after ? { after: factsFrom(r.after) } : {}),
    ...(r.landedAt ? { landedAt: r.landedAt } : {}),
  };
}

/** A history event's served facts, before and after the renewal. */
export interface EventServed {
  readonly before?: ServedFacts | undefined;
  readonly after?: ServedFacts | undefined;
}

/** The history row's `served` property; undefined when the event has neither. */
export function eventServedText(e: EventServed): string | undefined {
  if (!e.before && !e.after) return undefined;
  return JSON.stringify({
    ...(e.before ? { before: servedFactsJson(e.before) } : {}),
    ...(e.after ? { after: servedFactsJson(e.after) } : {}),
  });
}

const eventServedSchema = z.object({
  before: servedFactsSchema.optional(),
  after: servedFactsSchema.optional(),
});

/** The history row's `served` property read back; {} when missing or not right. */
export function eventServedFrom(stored: unknown): EventServed {
  if (typeof stored !== "string") return {};
  let json: unknown;
  try {
    json = JSON.parse(stored);
  } catch {
    return {};
  }
  const parsed = eventServedSchema.safeParse(json);
  if (!parsed.success) return {};
  const { before, after } = parsed.data;
  return {
    ...(before ? { before: factsFrom(before) } : {}),
    ...(after ? { after: factsFrom(after) } : {}),
  };
}
