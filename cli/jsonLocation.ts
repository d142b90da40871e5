/**
 * Where a JSON text goes wrong, as line and column, for the files an operator edits by hand
 * (local.settings.json, create request files). V8's own messages give a position only for some
 * errors, and quote the text around it, which may hold a password; this scanner finds the
 * first error itself and describes it without quoting anything.
 */

/** The first syntax error: 1-based line and column (in characters), and what was expected. */
export interface JsonSyntaxLocation {
  readonly line: number;
  readonly column: number;
  readonly reason: string;
}

/** Internal: unwinds the scan at the first error. Never leaves this module. */
class Stop {
  constructor(
    readonly at: number,
    readonly reason: string,
  ) {}
}

// Deeper than this is not a hand-edited file; stop instead of risking the call stack.
const MAX_DEPTH = 1000;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);

function scan(text: string): void {
  let i = 0;
  const stop = (reason: string, at = i): never => {
    throw new Stop(at, i >= text.length ? "the text ends too early" : reason);
  };
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text.charAt(i))) i++;
  };
  const string = () => {
    i++; // the opening quote
    for (;;) {
      if (i >= text.length) stop("");
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) stop("a string holds a raw control character (a line break?)");
      if (c === 0x5c) {
        const next = text.charAt(i + 1);
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)))
            stop("a \\u escape needs 4 hex digits");
          i += 6;
        } else if (ESCAPES.has(next)) i += 2;
        else stop("a backslash starts an invalid escape");
      } else i++;
    }
  };
  const value = (depth: number): void => {
    if (depth > MAX_DEPTH) stop("nested too deeply");
    space();
    const c = text.charAt(i);
    if (c === "{") {
      members("}", depth, true);
      return;
    }
    if (c === "[") {
      members("]", depth, false);
      return;
    }
    if (c === '"') {
      string();
      return;
    }
    for (const word of ["true", "false", "null"]) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    }
    NUMBER.lastIndex = i;
    if (c !== "" && NUMBER.test(text)) {
      i = NUMBER.lastIndex;
      return;
    }
    stop(c === "'" ? "strings need double quotes" : "expected a value");
  };
  const members = (close: string, depth: number, object: boolean): void => {
    i++;
    space();
    if (text.charAt(i) === close) {
      i++;
      return;
    }
    for (;;) {
      space();
      if (object) {
        if (text.charAt(i) !== '"') {
          stop(
            text.charAt(i) === close
              ? "a comma before the closing brace"
              : "expected a property name in double quotes",
          );
        }
        string();
        space();
        if (text.charAt(i) !== ":") stop('expected ":" after the property name');
        i++;
      } else if (text.charAt(i) === close) {
        stop("a comma before the closing bracket");
      }
      value(depth + 1);
      space();
      const next = text.charAt(i);
      if (next === close) {
        i++;
        return;
      }
      if (next !== ",") stop(`expected "," or "${close}"`);
      i++;
    }
  };
  value(0);
  space();
  if (i < text.length) stop("more text after the JSON value");
}

/** The first syntax error of `text`, or undefined when it is valid JSON. */
export function jsonSyntaxLocation(text: string): JsonSyntaxLocation | undefined {
  try {
    scan(text);
    return undefined;
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    const before = text.slice(0, error.at);
    const lineStart = before.lastIndexOf("\n") + 1;
    const line = before.split("\n").length;
    const column = Array.from(before.slice(lineStart)).length + 1;
    return { line, column, reason: error.reason };
  }
}

const BOM = "\ufeff";

/**
 * JSON.parse for a file: a UTF-8 byte-order mark (Windows editors write one) is accepted, and a
 * syntax error becomes "is not valid JSON: line L, column C: <reason>", quoting nothing.
 */
export function parseJsonFile(
  text: string,
):
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problem: string } {
  const body = text.startsWith(BOM) ? text.slice(BOM.length) : text;
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch {
    const where = jsonSyntaxLocation(body);
    if (where === undefined) return { ok: false, problem: "is not valid JSON" };
    return {
      ok: false,
      problem: `is not valid JSON: line ${where.line}, column ${where.column}: ${where.reason}`,
    };
  }
}
