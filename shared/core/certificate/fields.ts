import { z } from "zod";

/** The two targets, written exactly as the service spells them (spec 2.1). */
export const APP_SERVICE = "Cloud App Service";
export const KEY_VAULT = "Cloud Key Vault + DNS";
export const TARGETS = [APP_SERVICE, KEY_VAULT] as const;
export type Target = (typeof TARGETS)[number];

export const CHALLENGE_TYPES = ["http", "dns"] as const;
export type ChallengeType = (typeof CHALLENGE_TYPES)[number];

/** Longest string we forward; the service states no limit, a kilobyte is beyond any real name. */
export const MAX_FIELD_LENGTH = 1024;

function missingOr(rule: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : rule);
}

/** A required, non-empty string field. */
export function requiredText() {
  return z
    .string({ error: missingOr("must be a string") })
    .min(1, { error: "must not be empty" })
    .max(MAX_FIELD_LENGTH, { error: `must be at most ${MAX_FIELD_LENGTH} characters` });
}

/** A required string field that may be empty (the slot name: "" when there is no slot). */
export function requiredMaybeEmptyText() {
  return z
    .string({ error: missingOr('must be a string (use "" for none)') })
    .max(MAX_FIELD_LENGTH, { error: `must be at most ${MAX_FIELD_LENGTH} characters` });
}

export function requiredBoolean() {
  return z.boolean({ error: missingOr("must be true or false") });
}

/** A string or null; the list answers null for fields that are not populated (spec 2.3). */
export function nullableText() {
  return z.string().nullable().optional().default(null);
}
