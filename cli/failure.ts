import {
  type CertschedError,
  ensureError,
  hasCode,
  isCertschedError,
  type Problem,
  upstreamOf,
} from "../shared/lib/errors.js";
import { redact } from "../shared/lib/redact/redact.js";
import { settingsHint } from "./config.js";
import { EXIT } from "./exit.js";
import type { Io } from "./io.js";
import { type Where, whereToLook } from "./output/cause.js";
import { palette } from "./output/color.js";
import { append, oneLine, wrapToWidth } from "./output/text.js";

export { EXIT };

// The settings a failed command ran with, so its report can say which URL it tried and which
// setting to check. Weak: the error owns the entry and nothing outlives the report.
const WHERE = new WeakMap<object, Where>();

/**
 * Remembers the settings an error happened under (the first said: an account's, before the
 * app's); returns the error, to rethrow.
 */
export function located(error: unknown, where: Where): unknown {
  if (typeof error === "object" && error !== null && !WHERE.has(error)) WHERE.set(error, where);
  return error;
}

/** Where to look for a failure of the service or the identity provider. */
function upstreamHint(e: CertschedError): string | undefined {
  const { upstream, status } = upstreamOf(e);
  return whereToLook({ upstream, code: e.code, status, text: e.message }, WHERE.get(e));
}

interface Described {
  readonly exitCode: number;
  readonly code: string;
  readonly message: string;
  readonly problems?: readonly Problem[];
  readonly hint?: string;
}

/** Branches on the error's code and fault (every class is in shared/lib/errors.ts). */
function describe(error: unknown, command: string | undefined, cwd: string): Described {
  const e = ensureError(error);
  if (!isCertschedError(e)) {
    return { exitCode: EXIT.failed, code: "INTERNAL", message: `unexpected error: ${e.message}` };
  }
  if (hasCode(e, "USAGE")) {
    const help = `Run "certsched ${command ? `${command} ` : ""}--help" for usage.`;
    return { exitCode: EXIT.usage, code: e.code, message: e.message, hint: help };
  }
  if (hasCode(e, "INPUT_INVALID")) {
    return { exitCode: EXIT.usage, code: e.code, message: e.message, problems: e.problems };
  }
  if (hasCode(e, "CONFIG_INVALID")) {
    return {
      exitCode: EXIT.usage,
      code: e.code,
      message: "invalid configuration",
      problems: e.problems,
      hint: settingsHint(cwd),
    };
  }
  if (hasCode(e, "VALIDATION_FAILED")) {
    return { exitCode: EXIT.usage, code: e.code, message: e.message, problems: e.issues };
  }
  if (hasCode(e, "PORT_IN_USE") || hasCode(e, "PORT_NOT_ALLOWED")) {
    return { exitCode: e.exitCode, code: e.code, message: e.message };
  }
  // Only an upstream's failure has a setting or a URL to point at (whereToLook).
  const hint = e.fault === "upstream" ? upstreamHint(e) : undefined;
  return { exitCode: EXIT.failed, code: e.code, message: e.message, ...(hint ? { hint } : {}) };
}

/** One account's failure in a command over several accounts, as its JSON "accounts" entry says it. */
export interface AccountFailure {
  readonly code: string;
  readonly message: string;
}

/**
 * One account's failure in a command over several: on stderr, named by the account (the others'
 * results are still printed), and returned for the JSON document. Redacted as every report.
 */
export function reportAccountFailure(
  error: unknown,
  io: Io,
  account: string,
  command: string,
): AccountFailure {
  const d = describe(error, command, io.cwd);
  const paint = palette(io.stderr, io.env);
  const width = io.stderr.columns;
  const lines = wrapToWidth(
    `${paint.red("certsched: error:")} account ${account}: ${oneLine(redact(d.message))}`,
    width,
  );
  for (const p of d.problems ?? []) {
    append(lines, wrapToWidth(oneLine(`- ${p.name}: ${redact(p.message)}`), width, "  ", "    "));
  }
  if (d.hint) append(lines, wrapToWidth(d.hint, width));
  io.stderr.write(`${lines.join("\n")}\n`);
  return { code: d.code, message: redact(d.message) };
}

/**
 * Reports a failure on stderr (and, with --json, as the one JSON document on stdout) and
 * returns the exit code. Every message is redacted: an upstream may echo what we sent.
 */
export function reportFailure(
  error: unknown,
  io: Io,
  options: { readonly json: boolean; readonly command?: string | undefined },
): number {
  const d = describe(error, options.command, io.cwd);
  const paint = palette(io.stderr, io.env);
  const width = io.stderr.columns;
  // Messages quote upstream words and names from elsewhere: one line each, escaped.
  const lines = wrapToWidth(
    `${paint.red("certsched: error:")} ${oneLine(redact(d.message))}`,
    width,
  );
  for (const p of d.problems ?? []) {
    append(lines, wrapToWidth(oneLine(`- ${p.name}: ${redact(p.message)}`), width, "  ", "    "));
  }
  if (d.hint) append(lines, wrapToWidth(d.hint, width));
  io.stderr.write(`${lines.join("\n")}\n`);
  if (options.json) {
    const problems = d.problems?.map((p) => ({ name: p.name, message: redact(p.message) }));
    const body = { code: d.code, message: redact(d.message), ...(problems ? { problems } : {}) };
    io.stdout.write(`${JSON.stringify({ error: body }, null, 2)}\n`);
  }
  return d.exitCode;
}
