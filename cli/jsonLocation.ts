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

/** A recursive-descent pass over one JSON text that throws Stop at the first error. */
class Scanner {
  /** The position of the next character to read. */
  private i = 0;

  constructor(private readonly text: string) {}

  /** The whole text: one value, with only white space around it. */
  scan(): void {
    this.value(0);
    this.space();
    if (this.i < this.text.length) this.stop("more text after the JSON value");
  }

  private stop(reason: string, at = this.i): never {
    throw new Stop(at, this.i >= this.text.length ? "the text ends too early" : reason);
  }

  private space(): void {
    while (this.i < this.text.length && " \t\n\r".includes(this.text.charAt(this.i))) this.i++;
  }

  private string(): void {
    const { text } = this;
    this.i++; // the opening quote
    for (;;) {
      if (this.i >= text.length) this.stop("");
      const c = text.charCodeAt(this.i);
      if (c === 0x22) {
        this.i++;
        return;
      }
      if (c < 0x20) this.stop("a string holds a raw control character (a line break?)");
      if (c === 0x5c) {
        const next = text.charAt(this.i + 1);
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(this.i + 2, this.i + 6)))
            this.stop("a \\u escape needs 4 hex digits");
          this.i += 6;
        } else if (ESCAPES.has(next)) this.i += 2;
        else this.stop("a backslash starts an invalid escape");
      } else this.i++;
    }
  }

  private value(depth: number): void {
    const { text } = this;
    if (depth > MAX_DEPTH) this.stop("nested too deeply");
    this.space();
    const c = text.charAt(this.i);
    if (c === "{") {
      this.members("}", depth, true);
      return;
    }
    if (c === "[") {
      this.members("]", depth, false);
      return;
    }
    if (c === '"') {
      this.string();
      return;
    }
    for (const word of ["true", "false", "null"]) {
      if (text.startsWith(word, this.i)) {
        this.i += word.length;
        return;
      }
    }
    NUMBER.lastIndex = this.i;
    if (c !== "" && NUMBER.test(text)) {
      this.i = NUMBER.lastIndex;
      return;
    }
    this.stop(c === "'" ? "strings need double quotes" : "expected a value");
  }

  /** An object's or an array's members, from its opening character through `close`. */
  private members(close: string, depth: number, object: boolean): void {
    const { text } = this;
    this.i++;
    this.space();
    if (text.charAt(this.i) === close) {
      this.i++;
      return;
    }
    for (;;) {
      this.space();
      if (object) this.propertyName(close);
      else if (text.charAt(this.i) === close) this.stop("a comma before the closing bracket");
      this.value(depth + 1);
      this.space();
      const next = text.charAt(this.i);
      if (next === close) {
        this.i++;
        return;
      }
      if (next !== ",") this.stop(`expected "," or "${close}"`);
      this.i++;
    }
  }

  /** A member's name in double quotes and the colon after it. */
  private propertyName(close: string): void {
    const { text } = this;
    if (text.charAt(this.i) !== '"') {
      this.stop(
        text.charAt(this.i) === close
          ? "a comma before the closing brace"
          : "expected a property name in double quotes",
      );
    }
    this.string();
    this.space();
    if (text.charAt(this.i) !== ":") this.stop('expected ":" after the property name');
    this.i++;
  }
}

/** The first syntax error of `text`, or undefined when it is valid JSON. */
export function jsonSyntaxLocation(text: string): JsonSyntaxLocation | undefined {
  try {
    new Scanner(text).scan();
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
