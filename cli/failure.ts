import {
  ConfigError,
  ensureError,
  isCertschedError,
  type Problem,
  ValidationError,
} from "../shared/errors.js";
import { redact } from "../shared/redact.js";
import { settingsHint } from "./config.js";
import type { Io } from "./io.js";
import { palette } from "./output/color.js";
import { UsageError } from "./usage.js";

/** Exit codes: the CLI's contract with scripts and schedulers. */
export const EXIT = {
  /** Done, including "nothing is due". */
  ok: 0,
  /** An operation failed: the service refused, could not be reached, a renewal failed. */
  failed: 1,
  /** The command line, the configuration or an input file is wrong; nothing was sent. */
  usage: 2,
} as const;

/** A file named on the command line is missing, unreadable or invalid; nothing was sent. */
export class InputError extends Error {
  readonly problems: readonly Problem[];

  constructor(message: string, problems: readonly Problem[] = []) {
    super(message);
    this.name = "InputError";
    this.problems = problems;
  }
}

/** Where to look when nothing answered: the settings that say where certsched calls. */
const UNREACHABLE_HINT: Partial<Record<string, string>> = {
  UPSTREAM_UNREACHABLE: "Check CERTSCHED_BASE_URL (and CERTSCHED_PUBLIC_BASE_URL) and the network.",
  UPSTREAM_TIMEOUT:
    "Check CERTSCHED_BASE_URL and the network; CERTSCHED_HTTP_TIMEOUT sets the time allowed.",
  TOKEN_UNAVAILABLE: "Check CERTSCHED_TOKEN_URL and the network.",
};

interface Described {
  readonly exitCode: number;
  readonly code: string;
  readonly message: string;
  readonly problems?: readonly Problem[];
  readonly hint?: string;
}

function describe(error: unknown, command: string | undefined, cwd: string): Described {
  const e = ensureError(error);
  const help = `Run "certsched ${command ? `${command} ` : ""}--help" for usage.`;
  if (e instanceof UsageError) {
    return { exitCode: EXIT.usage, code: "USAGE", message: e.message, hint: help };
  }
  if (e instanceof InputError) {
    return {
      exitCode: EXIT.usage,
      code: "INPUT_INVALID",
      message: e.message,
      problems: e.problems,
    };
  }
  if (e instanceof ConfigError) {
    return {
      exitCode: EXIT.usage,
      code: e.code,
      message: "invalid configuration",
      problems: e.problems,
      hint: settingsHint(cwd),
    };
  }
  if (e instanceof ValidationError) {
    return { exitCode: EXIT.usage, code: e.code, message: e.message, problems: e.issues };
  }
  if (isCertschedError(e)) {
    const hint = UNREACHABLE_HINT[e.code];
    return { exitCode: EXIT.failed, code: e.code, message: e.message, ...(hint ? { hint } : {}) };
  }
  return { exitCode: EXIT.failed, code: "INTERNAL", message: `unexpected error: ${e.message}` };
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
  const lines = [`${paint.red("certsched: error:")} ${redact(d.message)}`];
  for (const p of d.problems ?? []) lines.push(`  - ${p.name}: ${redact(p.message)}`);
  if (d.hint) lines.push(d.hint);
  io.stderr.write(`${lines.join("\n")}\n`);
  if (options.json) {
    const problems = d.problems?.map((p) => ({ name: p.name, message: redact(p.message) }));
    const body = { code: d.code, message: redact(d.message), ...(problems ? { problems } : {}) };
    io.stdout.write(`${JSON.stringify({ error: body }, null, 2)}\n`);
  }
  return d.exitCode;
}
