import type { z } from "zod";
import { type Problem, ValidationError } from "./errors.js";

/** Fields certsched fills in itself; a caller sending them has misunderstood the API. */
const INJECTED_FIELDS = new Set(["accessToken", "accessTokenKeyVault"]);

function pathOf(path: readonly PropertyKey[]): string {
  return path.length === 0 ? "(body)" : path.map(String).join(".");
}

function describeCase(input: unknown): string {
  if (typeof input !== "object" || input === null) return "this request";
  const { target, challengeType } = input as Record<string, unknown>;
  return `target "${String(target)}" with challengeType "${String(challengeType)}"`;
}

/**
 * Turns zod issues into one problem per field, each naming the field and the rule it broke.
 * Messages never quote the offending value: it may be a password.
 */
export function toProblems(error: z.ZodError, input: unknown): Problem[] {
  const problems: Problem[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const name = pathOf([...issue.path, key]);
        problems.push({
          name,
          message: INJECTED_FIELDS.has(key)
            ? "must not be sent: certsched obtains cloud access tokens itself"
            : `is not allowed for ${describeCase(input)}`,
        });
      }
      continue;
    }
    problems.push({ name: pathOf(issue.path), message: issue.message });
  }
  return problems;
}

/** Parses `input` or throws a ValidationError naming every problem. */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what: string,
): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ValidationError(what, toProblems(result.error, input));
}
