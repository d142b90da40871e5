import { z } from "zod";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { MAX_FIELD_LENGTH } from "../certificate/fields.js";
import type { NamedEndpoint } from "../verification/endpoint.js";

/**
 * CERTSCHED_WATCH (parsed in watchVaults.ts, both its forms) and CERTSCHED_WATCH_CERTIFICATES:
 * what verification watches beyond what the service lists. Comma-separated; blanks around
 * entries and empty entries (a trailing comma) are ignored; a repeated entry counts once. Every
 * bad entry is named.
 */

/** The inventory key of a watched endpoint: `watch:host[:port]`, as written (lower-cased). */
export const WATCH_PREFIX = "watch:";
export const watchKey = (endpoint: NamedEndpoint) => `${WATCH_PREFIX}${endpoint.label}`;

/** The entries of a comma-separated setting: trimmed, empty ones (a trailing comma) left out. */
export const entries = (text: string) =>
  text
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");

/** CERTSCHED_WATCH_CERTIFICATES: certificate names, looked up with Get Certificate. */
export const watchCertificateNames = z
  .string()
  .default("")
  .transform((text, ctx) => {
    const names = new Set<string>();
    for (const name of entries(text)) {
      // The name becomes one path segment of Get Certificate: "." and ".." would change it.
      if (name === "." || name === ".." || name.length > MAX_FIELD_LENGTH) {
        ctx.addIssue({
          code: "custom",
          message: `entry "${escapeControl(name.slice(0, 80))}" must be a certificate name (not "." or "..", at most ${MAX_FIELD_LENGTH} characters)`,
        });
      } else {
        names.add(name);
      }
    }
    return [...names] as readonly string[];
  });
