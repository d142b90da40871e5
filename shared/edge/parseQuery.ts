import type { HttpRequest } from "@azure/functions";
import { z } from "zod";
import { type Problem, ValidationError } from "../lib/errors.js";
import { escapeControl } from "../lib/text/escapeControl.js";
import { parseOrThrow } from "../lib/zodProblems.js";

/**
 * The function key, when a caller authenticates with `?code=` instead of the `x-functions-key`
 * header. The host checks it before any handler runs and leaves it in the URL, so every
 * function must allow it. We never read it, and never echo it (not even when it is repeated).
 */
export const FUNCTION_KEY_PARAMETER = "code";

/** Longest parameter name quoted back in an error; a longer one is cut (it is the caller's text). */
const NAME_LIMIT = 64;

/**
 * A function's query string, strictly: every parameter must be one the schema declares (or
 * `code`), given at most once; then the values are validated by the schema. Anything else is a
 * 400 naming each parameter and the rule, before any work is done, because an ignored
 * `?dryrun=true` (a typo) runs a real sweep.
 *
 * The query is read from the raw URL, not `request.query`: on the host's default (non-stream)
 * path `request.query` is built from a map, which joins a repeated `?a=1&a=2` into "1,2" and
 * drops a parameter without a value (azure-functions-nodejs-library#168).
 */
export function parseQuery<S extends z.ZodObject>(request: HttpRequest, schema: S): z.output<S> {
  const known = Object.keys(schema.shape);
  const params = new URL(request.url).searchParams;
  const counts = new Map<string, number>();
  for (const [name] of params) {
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const problems: Problem[] = [];
  for (const [name, count] of counts) {
    if (name !== FUNCTION_KEY_PARAMETER && !known.includes(name)) {
      problems.push({ name: shown(name), message: unknownMessage(name, known) });
    } else if (count > 1) {
      problems.push({ name, message: `is given ${count} times: give it at most once` });
    }
  }
  if (problems.length > 0) throw new ValidationError("query", problems);
  const values = Object.fromEntries(known.map((name) => [name, params.get(name) ?? undefined]));
  return parseOrThrow(schema, values, "query");
}

/**
 * A parameter name as an error may quote it: control characters made visible, cut at
 * NAME_LIMIT, and nothing after an `=` (a name holds one only when it arrived encoded as %3D,
 * as in `?code%3D<function key>`: what follows is a value, maybe a secret).
 */
function shown(name: string): string {
  const equals = name.indexOf("=");
  const bare = equals >= 0 ? `${name.slice(0, equals)}=…` : name;
  if (bare === "") return "(unnamed)";
  const cut = bare.length > NAME_LIMIT ? `${bare.slice(0, NAME_LIMIT)}…` : bare;
  return escapeControl(cut);
}

function unknownMessage(name: string, known: readonly string[]): string {
  const takes = known.length > 0 ? `it takes ${known.join(", ")}` : "it takes none";
  const rule = `is not a query parameter of this function (${takes})`;
  if (name === "") return `${rule}: a parameter has no name`;
  const equals = name.indexOf("=");
  if (equals >= 0) {
    const before = name.slice(0, equals);
    if (known.includes(before) || before === FUNCTION_KEY_PARAMETER) {
      return `${rule}: its "=" arrived percent-encoded (%3D); send ${before}=<value>`;
    }
    return rule;
  }
  const near = [...known, FUNCTION_KEY_PARAMETER].find((k) => loose(k) === loose(name));
  return near ? `${rule}: did you mean ${near}? (names must match exactly, case included)` : rule;
}

/** Lower case without separators: `DryRun`, `dry_run` and `dry-run` all become `dryrun`. */
function loose(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, "");
}

/** The schema of a function that takes no query parameters (besides `code`). */
export const noQuery = z.object({});
