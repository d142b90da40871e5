/**
 * Just enough KQL to check an alert query against the log lines it is meant to find: its string
 * literals (comments skipped), the filters that compare a column with a literal, the patterns of
 * `parse ... with`, and member accesses on dynamic values (s.failed). Not a KQL parser: whatever
 * the tests cannot classify is reported, so no literal escapes a check.
 */

export type Token =
  | { readonly kind: "string"; readonly value: string; readonly at: number }
  | { readonly kind: "word"; readonly value: string; readonly at: number }
  | { readonly kind: "symbol"; readonly value: string; readonly at: number };

const WORD = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /[0-9][0-9.]*[a-z]*/y;
const SYMBOLS = ["==", "!=", "=~", "!~", "<=", ">=", "|", "(", ")", ",", "=", "<", ">", ":", "."];

/** Tokens of a query; strings are unescaped (KQL's "..." and '...' with \ escapes, @"..." raw). */
export function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < query.length) {
    const c = query[i] as string;
    if (/\s/.test(c)) {
      i += 1;
    } else if (query.startsWith("//", i)) {
      const end = query.indexOf("\n", i);
      i = end === -1 ? query.length : end;
    } else if (
      c === '"' ||
      c === "'" ||
      ((c === "@" || c === "h") && /["']/.test(query[i + 1] ?? ""))
    ) {
      const verbatim = c === "@";
      const start = c === '"' || c === "'" ? i : i + 1;
      const quote = query[start] as string;
      let value = "";
      let j = start + 1;
      while (j < query.length && query[j] !== quote) {
        if (!verbatim && query[j] === "\\") {
          const next = query[j + 1] ?? "";
          value += ({ n: "\n", t: "\t", r: "\r" } as Record<string, string>)[next] ?? next;
          j += 2;
        } else {
          value += query[j];
          j += 1;
        }
      }
      if (j >= query.length) throw new Error(`unterminated string at ${i}`);
      tokens.push({ kind: "string", value, at: i });
      i = j + 1;
    } else if (/[0-9]/.test(c)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(query) as RegExpExecArray;
      tokens.push({ kind: "word", value: m[0], at: i });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      WORD.lastIndex = i;
      const m = WORD.exec(query) as RegExpExecArray;
      tokens.push({ kind: "word", value: m[0], at: i });
      i += m[0].length;
    } else {
      const symbol = SYMBOLS.find((s) => query.startsWith(s, i)) ?? c;
      tokens.push({ kind: "symbol", value: symbol, at: i });
      i += symbol.length;
    }
  }
  return tokens;
}

/** String comparison operators of KQL that a filter on a log line uses. */
const STRING_OPERATORS = [
  "startswith",
  "startswith_cs",
  "endswith",
  "endswith_cs",
  "contains",
  "contains_cs",
  "has",
  "has_cs",
  "==",
  "=~",
] as const;
export type StringOperator = (typeof STRING_OPERATORS)[number] | "matches regex";

export interface Filter {
  readonly column: string;
  readonly operator: StringOperator;
  readonly literal: string;
  /** Index of the literal's token. */
  readonly token: number;
}

/** `column <op> "literal"` comparisons. */
export function filters(tokens: readonly Token[]): Filter[] {
  const out: Filter[] = [];
  tokens.forEach((t, i) => {
    if (t.kind !== "string") return;
    const before = tokens[i - 1];
    if (!before) return;
    let operator: StringOperator | undefined;
    let columnAt = i - 2;
    if (before.value === "regex" && tokens[i - 2]?.value === "matches") {
      operator = "matches regex";
      columnAt = i - 3;
    } else if ((STRING_OPERATORS as readonly string[]).includes(before.value)) {
      operator = before.value as StringOperator;
    }
    const column = tokens[columnAt];
    if (operator && column?.kind === "word") {
      out.push({ column: column.value, operator, literal: t.value, token: i });
    }
  });
  return out;
}

/** Whether `line` passes `column <operator> literal`, as KQL compares strings. */
export function passes(line: string, operator: StringOperator, literal: string): boolean {
  const lower = (s: string) => s.toLowerCase();
  switch (operator) {
    case "startswith":
      return lower(line).startsWith(lower(literal));
    case "startswith_cs":
      return line.startsWith(literal);
    case "endswith":
      return lower(line).endsWith(lower(literal));
    case "endswith_cs":
      return line.endsWith(literal);
    case "contains":
      return lower(line).includes(lower(literal));
    case "contains_cs":
      return line.includes(literal);
    // `has` matches whole terms; a substring at term boundaries is close enough for literals
    // made of a term or a phrase.
    case "has":
    case "has_cs": {
      const flags = operator === "has" ? "i" : "";
      const escaped = literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      return new RegExp(`(^|[^A-Za-z0-9_])${escaped}($|[^A-Za-z0-9_])`, flags).test(line);
    }
    case "==":
      return line === literal;
    case "=~":
      return lower(line) === lower(literal);
    case "matches regex":
      return new RegExp(literal).test(line);
  }
}

export interface ParsePattern {
  readonly column: string;
  /** Token indexes of the pattern's literals. */
  readonly tokens: readonly number[];
  /** The pattern as a regular expression: literals as such, each column a named group. */
  readonly regex: RegExp;
  readonly columns: readonly string[];
}

/** `parse <column> with "literal" name "literal" name:int ...` up to the next pipe. */
export function parsePatterns(tokens: readonly Token[]): ParsePattern[] {
  const out: ParsePattern[] = [];
  tokens.forEach((t, i) => {
    if (t.value !== "parse" || tokens[i + 2]?.value !== "with") return;
    const pipe = tokens.findIndex((n, k) => k > i && n.value === "|");
    const last = pipe === -1 ? tokens.length : pipe;
    const literalTokens: number[] = [];
    const columns: string[] = [];
    let source = "^";
    for (let j = i + 3; j < last; j += 1) {
      const part = tokens[j] as Token;
      if (part.kind === "string") {
        literalTokens.push(j);
        source += part.value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        continue;
      }
      if (part.kind !== "word") continue;
      const typed = tokens[j + 1]?.value === ":";
      const type = typed ? tokens[j + 2]?.value : "string";
      // As KQL's simple mode: a column ends at the first occurrence of the next literal; the
      // last column takes the rest of the line.
      const isLast = !tokens.slice(j + 1, last).some((n) => n.kind === "string");
      const body = type === "int" || type === "long" ? "-?\\d+" : isLast ? ".*" : ".*?";
      columns.push(part.value);
      source += `(?<${part.value}>${body})`;
      if (typed) j += 2;
    }
    out.push({
      column: tokens[i + 1]?.value ?? "",
      tokens: literalTokens,
      regex: new RegExp(`${source}$`, "s"),
      columns,
    });
  });
  return out;
}

/** Member names read from a dynamic value: `s.failed`, `c.daysLeft` -> { s: [failed], c: [daysLeft] }. */
export function memberAccesses(tokens: readonly Token[], names: readonly string[]) {
  const out = new Map<string, string[]>();
  tokens.forEach((t, i) => {
    if (t.kind !== "word" || !names.includes(t.value) || tokens[i + 1]?.value !== ".") return;
    const member = tokens[i + 2];
    if (member?.kind !== "word") return;
    out.set(t.value, [...(out.get(t.value) ?? []), member.value]);
  });
  return out;
}
