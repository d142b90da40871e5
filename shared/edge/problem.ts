import type { HttpResponseInit } from "@azure/functions";
import type { Problem } from "../lib/errors.js";
import { redactRecordStrings } from "../lib/redact/redactStrings.js";

/**
 * An RFC 9457 problem document. `errors` (one entry per invalid field, naming the field and
 * the rule) is our extension member; `code` is the stable error code from shared/lib/errors.ts.
 */
export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: readonly Problem[];
  instance?: string;
}

/** Problem types are URNs (RFC 9457 3.1.1 allows any URI); README lists the codes. */
const TYPE_BASE = "urn:certsched:problem:";

export function problem(
  status: number,
  code: string,
  title: string,
  detail: string,
  extra: { errors?: readonly Problem[]; headers?: Record<string, string> } = {},
): HttpResponseInit {
  const body: ProblemDocument = {
    type: `${TYPE_BASE}${code.toLowerCase().replaceAll("_", "-")}`,
    title,
    status,
    detail,
    code,
    ...(extra.errors ? { errors: extra.errors } : {}),
  };
  return {
    status,
    headers: { "content-type": "application/problem+json", ...extra.headers },
    body: JSON.stringify(body),
  };
}

/**
 * A JSON response. Every string in `body` is redacted on the way out: what it shows came from
 * storage and the service, which may hold tokens another process was issued (found by their
 * shape) or text nobody cleaned before this version. As records' data are (redactRecordStrings):
 * upstream texts were cut at their entry already, and a name that says "Bearer" and a word is
 * no token, so it is shown as it is.
 */
export function json(status: number, body: unknown): HttpResponseInit {
  return {
    status,
    headers: { "content-type": "application/json; charset=utf-8" },
    body: JSON.stringify(redactRecordStrings(body)),
  };
}
