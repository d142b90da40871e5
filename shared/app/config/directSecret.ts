import { z } from "zod";
import { MIN_SECRET_LENGTH, significantLength } from "../../lib/redact/secretForms.js";

/**
 * CERTSCHED_API_KEY / CERTSCHED_CLIENT_SECRET / CERTSCHED_CT_API_KEY given directly. A value with fewer than
 * MIN_SECRET_LENGTH characters besides whitespace is refused: it cannot be told apart from
 * ordinary words, so it could not be kept out of logs and responses (README, "Secrets").
 */
export const directSecret = z
  .string()
  .refine((value) => significantLength(value) >= MIN_SECRET_LENGTH, {
    message: `must hold at least ${MIN_SECRET_LENGTH} characters (not counting spaces): a shorter secret cannot be told apart from ordinary text, so certsched could not keep it out of logs and responses`,
  });
