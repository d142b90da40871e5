import { z } from "zod";
import type { CertificatePolicy, WindowRule } from "../../core/windows/calendar.js";
import {
  patternProblem,
  timeZoneProblem,
  windowStartProblem,
} from "../../core/windows/windowStart.js";
import type { Problem } from "../../lib/errors.js";
import { DAY_MS, MINUTE_MS, parseDuration } from "../../lib/time.js";
import { declaredText, kindError, MAX_ENTRIES, parseList, quoted } from "./declaredList.js";

/**
 * Renewal windows and per-certificate policies as declared (CERTSCHED_RENEWAL_WINDOWS,
 * CERTSCHED_CERTIFICATE_POLICY, an account's `windows` and `certificatePolicy`): each entry
 * checked field by field, every problem named `<label>[i].<field>` with the rule it broke.
 */

/** A window lasts at least a minute: a shorter one no timer can be relied on to hit. */
export const WINDOW_DURATION_MIN_MS = MINUTE_MS;
/** And at most 31 days: a longer one is a month with a gap, better declared as a freeze. */
export const WINDOW_DURATION_MAX_MS = 31 * DAY_MS;

/** A start's five fields, with the values each allows (7 is Sunday too, as in cron). */
const START_FIELDS = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day-of-month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12 },
  { name: "day-of-week", min: 0, max: 7 },
] as const;

/**
 * A number out of its field's range, said in the field's own numbers (croner counts days and
 * months from 0 in its messages: "day: 31" for a 32); steps are left to croner.
 */
function startRangeProblem(text: string): string | undefined {
  const fields = text.split(/\s+/);
  if (fields.length !== START_FIELDS.length) return undefined;
  for (const [index, spec] of START_FIELDS.entries()) {
    for (const item of (fields[index] ?? "").split(",")) {
      const range = item.split("/")[0] ?? "";
      for (const number of range.split("-")) {
        if (!/^\d+$/.test(number)) continue;
        const n = Number(number);
        if (n < spec.min || n > spec.max) {
          return `its ${spec.name} field has ${n}: it must be from ${spec.min} to ${spec.max}`;
        }
      }
    }
  }
  return undefined;
}

/** A start: five cron fields, each in its range, then croner's rules as the core reads them. */
const startProblem = (text: string) => startRangeProblem(text) ?? windowStartProblem(text);

/** The problem of a window's duration, or its length in ms. */
export function windowDuration(text: string): number | string {
  const ms = parseDuration(text);
  if (ms === undefined) {
    return text.startsWith("-")
      ? "must be more than 0: a window with a negative duration never opens"
      : "must be a duration like 7h, 90m, 2d or PT7H";
  }
  if (ms === 0) return "must be more than 0: a window that lasts 0 never opens";
  if (ms < WINDOW_DURATION_MIN_MS || ms > WINDOW_DURATION_MAX_MS) {
    return "must be from 1m to 31d";
  }
  return ms;
}

const duration = declaredText().transform((text, ctx) => {
  const ms = windowDuration(text);
  if (typeof ms === "string") {
    ctx.addIssue({ code: "custom", message: ms });
    return z.NEVER;
  }
  return ms;
});

/** Names or patterns (`*`, `?`): a non-empty list, each one able to match a certificate name. */
const patterns = z
  .array(declaredText(patternProblem), {
    error: kindError("must be a JSON array of certificate names or patterns"),
  })
  .min(1, {
    error: "must list at least one name or pattern (leave it out to cover every certificate)",
  })
  .max(MAX_ENTRIES, { error: `must list at most ${MAX_ENTRIES} names or patterns` });

const windowEntry = z.strictObject({
  start: declaredText(startProblem),
  duration,
  timeZone: declaredText(timeZoneProblem),
  certificates: patterns.optional(),
});

const policyEntry = z.strictObject({
  certificates: patterns,
  policy: z.enum(["renew", "disabled"], { error: kindError('must be "renew" or "disabled"') }),
});

/** The windows `value` (parsed JSON) declares, labelled `<label>[i]`, and every problem. */
export function parseWindows(
  value: unknown,
  label: string,
): { windows: WindowRule[]; problems: Problem[] } {
  const list = parseList(value, label, {
    noun: "window",
    entry: windowEntry,
    fields: "start, duration, timeZone and certificates",
  });
  const windows = list.entries.map(
    ({ label, value }): WindowRule => ({
      label,
      start: value.start,
      durationMs: value.duration,
      timeZone: value.timeZone,
      certificates: value.certificates,
    }),
  );
  return { windows, problems: list.problems };
}

/** Whether a name has no wildcard: an exact certificate name. */
const isExact = (name: string) => !/[*?]/.test(name);

/** An exact name given two different policies: each one after the first that disagrees. */
function conflicts(policies: readonly CertificatePolicy[]): Problem[] {
  const first = new Map<string, CertificatePolicy>();
  const problems: Problem[] = [];
  for (const policy of policies) {
    policy.certificates.forEach((name, index) => {
      if (!isExact(name)) return;
      const earlier = first.get(name);
      if (earlier === undefined) first.set(name, policy);
      else if (earlier.policy !== policy.policy) {
        problems.push({
          name: `${policy.label}.certificates[${index}]`,
          message: `gives ${quoted(name)} the policy "${policy.policy}", but ${earlier.label} gives it "${earlier.policy}": give each name one policy`,
        });
      }
    });
  }
  return problems;
}

/** The policies `value` (parsed JSON) declares, labelled `<label>[i]`, and every problem. */
export function parsePolicies(
  value: unknown,
  label: string,
): { policies: CertificatePolicy[]; problems: Problem[] } {
  const list = parseList(value, label, {
    noun: "policy",
    entry: policyEntry,
    fields: "certificates and policy",
  });
  const policies = list.entries.map(
    ({ label, value }): CertificatePolicy => ({
      label,
      certificates: value.certificates,
      policy: value.policy,
    }),
  );
  return { policies, problems: [...list.problems, ...conflicts(policies)] };
}
