import { z } from "zod";
import type { Problem } from "../../lib/errors.js";

/**
 * The pieces every list of the renewal calendar's declarations shares (windows, freezes,
 * policies): one text rule, one way of quoting what an operator wrote, one way of naming a
 * problem (`CERTSCHED_RENEWAL_WINDOWS[0].start`).
 */

/** The longest text a field may hold: a cron start, a zone, a pattern, a reason, a date. */
export const MAX_FIELD_LENGTH = 200;

/** The most entries one list may hold: more is a mistake (a generated file), not a calendar. */
export const MAX_ENTRIES = 100;

/**
 * C0 and C1 controls, and the invisible characters that reorder or break a terminal line
 * (bidirectional marks and overrides, the line and paragraph separators).
 */
function isControl(code: number): boolean {
  return (
    code <= 0x1f ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x200e ||
    code === 0x200f ||
    code === 0x2028 ||
    code === 0x2029 ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

export function hasControlCharacters(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (isControl(text.charCodeAt(i))) return true;
  return false;
}

/**
 * `text` in double quotes for a message: control characters escaped (`\u001b`), cut after `max`
 * characters, so a value can neither flood nor rewrite the operator's terminal.
 */
export function quoted(text: string, max = 40): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  let out = "";
  for (const char of cut) {
    const code = char.charCodeAt(0);
    out +=
      isControl(code) || char === '"' || char === "\\"
        ? `\\u${code.toString(16).padStart(4, "0")}`
        : char;
  }
  return `"${out}"`;
}

/** What is wrong with a field's text before its own rule is read, if anything. */
export function textProblem(value: string): string | undefined {
  if (value.length > MAX_FIELD_LENGTH) {
    return `must be at most ${MAX_FIELD_LENGTH} characters (it has ${value.length})`;
  }
  if (hasControlCharacters(value)) return "must not hold control characters";
  if (value.trim() === "") return "must not be blank";
  return undefined;
}

/** "is required" for a missing field, the expected kind otherwise. */
export function kindError(kind: string) {
  return (issue: { input?: unknown }) => (issue.input === undefined ? "is required" : kind);
}

/**
 * A text field, trimmed: at most MAX_FIELD_LENGTH characters, no control characters, not
 * blank, then `rule` (the problem in words, or undefined).
 */
export function declaredText(rule?: (text: string) => string | undefined) {
  return z
    .string({ error: kindError("must be a text (a JSON string)") })
    .transform((value, ctx) => {
      const problem = textProblem(value) ?? rule?.(value.trim());
      if (problem !== undefined) {
        ctx.addIssue({ code: "custom", message: problem });
        return z.NEVER;
      }
      return value.trim();
    });
}

/** `certificates[1].x` from zod's path `["certificates", 1, "x"]`. */
function pathText(path: readonly PropertyKey[]): string {
  return path.map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`)).join("");
}

/** What one entry's zod issues say, each named `<label>[i].<field>`. */
function entryProblems(label: string, issues: readonly z.core.$ZodIssue[], fields: string) {
  const problems: Problem[] = [];
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        problems.push({
          name: `${label}${pathText(issue.path)}`,
          message: `has an unknown field ${quoted(key)}: the fields are ${fields}`,
        });
      }
    } else {
      problems.push({ name: `${label}${pathText(issue.path)}`, message: issue.message });
    }
  }
  return problems;
}

/** One declared list: its entries that parsed, with their labels, and every problem. */
export interface DeclaredList<T> {
  readonly entries: { readonly label: string; readonly value: T }[];
  readonly problems: Problem[];
}

/**
 * Reads `value` (parsed JSON) as a list of `noun` objects, each checked with `entry`; `label`
 * names the list (`CERTSCHED_RENEWAL_WINDOWS`, `CERTSCHED_ACCOUNTS[1] (account "b").windows`),
 * and each entry is `<label>[i]`. `fields` lists the entry's fields for an unknown one.
 */
export function parseList<S extends z.ZodType>(
  value: unknown,
  label: string,
  what: { readonly noun: string; readonly entry: S; readonly fields: string },
): DeclaredList<z.output<S>> {
  if (!Array.isArray(value)) {
    return {
      entries: [],
      problems: [{ name: label, message: `must be a JSON array of ${what.noun} objects` }],
    };
  }
  if (value.length > MAX_ENTRIES) {
    return {
      entries: [],
      problems: [
        {
          name: label,
          message: `must hold at most ${MAX_ENTRIES} entries (it has ${value.length})`,
        },
      ],
    };
  }
  const entries: { label: string; value: z.output<S> }[] = [];
  const problems: Problem[] = [];
  value.forEach((item, index) => {
    const at = `${label}[${index}]`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      problems.push({ name: at, message: `must be a ${what.noun} object` });
      return;
    }
    const result = what.entry.safeParse(item);
    if (result.success) entries.push({ label: at, value: result.data });
    else problems.push(...entryProblems(at, result.error.issues, what.fields));
  });
  return { entries, problems };
}

/**
 * A setting's JSON text, parsed; or the problem, which never quotes the text (JSON.parse's
 * message does, near the error).
 */
export function parseJsonSetting(
  name: string,
  text: string,
  noun: string,
): { ok: true; value: unknown } | { ok: false; problem: Problem } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const at = /position (\d+)/.exec(error instanceof Error ? error.message : "")?.[1];
    return {
      ok: false,
      problem: {
        name,
        message: `is not valid JSON${at ? ` (at character ${at})` : ""}: it must be an array of ${noun} objects`,
      },
    };
  }
}
