import { z } from "zod";
import type { PreflightRecord } from "../../../core/ports/inventory.js";
import {
  FAIL_REASONS,
  MAX_CHECK_DETAIL,
  PREFLIGHT_CHECKS,
  PREFLIGHT_STATUSES,
} from "../../../core/preflight/preflight.js";
import { instant } from "./rowText.js";

/**
 * The inventory row's `preflight` property: the last preflight of the certificate, as
 * JSON, dates ISO-8601. Read back it is validated like the rest of the row: a check, status or
 * reason certsched does not know makes the row invalid, never a guess.
 */

const cut = (text: string) =>
  text.length > MAX_CHECK_DETAIL ? `${text.slice(0, MAX_CHECK_DETAIL - 1)}…` : text;

export function preflightJson(p: PreflightRecord): string {
  return JSON.stringify({
    at: p.at.toISOString(),
    status: p.status,
    rootDomain: p.rootDomain,
    checks: p.checks.map((c) => ({
      check: c.check,
      status: c.status,
      ...(c.reason === undefined ? {} : { reason: c.reason }),
      detail: cut(c.detail),
    })),
  });
}

export const preflightSchema = z.object({
  at: instant,
  status: z.enum(PREFLIGHT_STATUSES),
  rootDomain: z.string().nullable(),
  checks: z
    .array(
      z.object({
        check: z.enum(PREFLIGHT_CHECKS),
        status: z.enum(["pass", "fail", "unknown"]),
        reason: z.enum(FAIL_REASONS).optional(),
        detail: z.string().max(MAX_CHECK_DETAIL),
      }),
    )
    .max(PREFLIGHT_CHECKS.length),
});

/** The parsed property as a record (optional fields left out, not undefined). */
export function fromPreflightJson(p: z.infer<typeof preflightSchema>): PreflightRecord {
  return {
    at: p.at,
    status: p.status,
    rootDomain: p.rootDomain,
    checks: p.checks.map((c) => ({
      check: c.check,
      status: c.status,
      ...(c.reason === undefined ? {} : { reason: c.reason }),
      detail: c.detail,
    })),
  };
}
