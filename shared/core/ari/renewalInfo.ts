import { z } from "zod";

/**
 * A CA's renewalInfo answer (RFC 9773, section 4.2), validated: it comes from the network, so
 * every field is bounded and the window must make sense before anything acts on it.
 */
export interface RenewalInfo {
  /** When the CA suggests renewal may start. */
  readonly start: Date;
  /** When the CA wants renewal done by; after `start`. */
  readonly end: Date;
  /** A page explaining the window (e.g. an incident), shown to people; http(s) only. */
  readonly explanationUrl: string | undefined;
}

/** The longest body read as renewalInfo, in bytes; the CA's answers are a few hundred. */
export const MAX_RENEWAL_INFO_BYTES = 64 * 1024;

/** The longest explanationURL kept, in characters. */
export const MAX_EXPLANATION_URL = 2048;

// RFC 3339 timestamps, as the RFC requires; Date.parse alone reads far looser text as dates.
const timestamp = z
  .string()
  .max(64)
  .regex(
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/,
    "must be an RFC 3339 timestamp",
  )
  .transform((text, ctx) => {
    const at = new Date(text);
    if (Number.isNaN(at.getTime())) {
      ctx.addIssue({ code: "custom", message: "must be a valid date" });
      return z.NEVER;
    }
    return at;
  });

const explanationUrl = z
  .string()
  .max(MAX_EXPLANATION_URL)
  .refine((text) => {
    try {
      return ["https:", "http:"].includes(new URL(text).protocol);
    } catch {
      return false;
    }
  }, "must be an http(s) URL");

const schema = z.object({
  suggestedWindow: z.object({ start: timestamp, end: timestamp }),
  explanationURL: explanationUrl.optional(),
});

/** The body's RenewalInfo, or a message saying what is wrong with it (for a log line). */
export function parseRenewalInfo(text: string): RenewalInfo | { readonly problem: string } {
  if (text.length > MAX_RENEWAL_INFO_BYTES) {
    return { problem: `the answer is larger than ${MAX_RENEWAL_INFO_BYTES} bytes` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: "the answer is not JSON" };
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.join(".") || "(body)";
    return { problem: `${where}: ${issue?.message ?? "invalid"}` };
  }
  const { start, end } = result.data.suggestedWindow;
  // Section 4.2: a window whose end is not after its start is invalid; treat as no answer.
  if (end.getTime() <= start.getTime()) {
    return { problem: "suggestedWindow.end is not after suggestedWindow.start" };
  }
  return { start, end, explanationUrl: result.data.explanationURL };
}
