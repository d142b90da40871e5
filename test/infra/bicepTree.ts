import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import type Parser from "tree-sitter";

// tree-sitter and its Bicep grammar are CommonJS native addons.
const require = createRequire(import.meta.url);
const TreeSitter = require("tree-sitter") as typeof Parser;
const bicepLanguage = require("tree-sitter-bicep") as Parser.Language;

export type Node = Parser.SyntaxNode;

/** One parsed .bicep file; `path` is relative to the repository root, with forward slashes. */
export interface BicepFile {
  readonly path: string;
  readonly absolutePath: string;
  readonly root: Node;
}

export interface ParamDecl {
  readonly name: string;
  /** Decorator names, e.g. ["description", "secure"]. */
  readonly decorators: readonly string[];
  /** The `@allowed([...])` values that are plain strings or numbers, as text. */
  readonly allowed: readonly string[] | undefined;
  /** Arguments of each decorator as source text, e.g. minValue -> ["40"]. */
  readonly decoratorArgs: ReadonlyMap<string, readonly string[]>;
  readonly defaultValue: Node | undefined;
}

export interface ResourceDecl {
  readonly symbol: string;
  /** The type string with its API version, e.g. "Microsoft.Web/sites@2024-04-01". */
  readonly type: string;
  readonly existing: boolean;
  /** Deployed only when a condition holds (`= if (...) { ... }`). */
  readonly conditional: boolean;
  /** The condition of `= if (...)`, e.g. "!empty(apiKey)". */
  readonly condition: string | undefined;
  readonly body: Node | undefined;
}

export interface ModuleDecl {
  readonly symbol: string;
  /** Path of the module file as written, relative to the declaring file. */
  readonly source: string;
  readonly body: Node | undefined;
}

/** Parses Bicep text; `path` only names the file in messages. */
export function parseBicepSource(source: string, path: string, absolutePath = path): BicepFile {
  const parser = new TreeSitter();
  parser.setLanguage(bicepLanguage);
  return { path, absolutePath, root: parser.parse(source).rootNode };
}

export function parseBicep(absolutePath: string, repoRoot: string): BicepFile {
  const path = relative(repoRoot, absolutePath).split("\\").join("/");
  return parseBicepSource(readFileSync(absolutePath, "utf8"), path, absolutePath);
}

/** Every *.bicep file under `dir`, recursively, sorted by path. */
export function findBicepFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...findBicepFiles(full));
    else if (entry.name.endsWith(".bicep")) out.push(full);
  }
  return out.sort();
}

function descendants(node: Node): Node[] {
  const out: Node[] = [];
  const walk = (n: Node) => {
    out.push(n);
    for (const child of n.children) walk(child);
  };
  walk(node);
  return out;
}

/** ERROR and MISSING nodes as "line:column type text", 1-based lines. */
export function syntaxProblems(file: BicepFile): string[] {
  return descendants(file.root)
    .filter((n) => n.type === "ERROR" || n.isMissing)
    .map(
      (n) =>
        `${file.path}:${n.startPosition.row + 1}:${n.startPosition.column + 1} ` +
        `${n.isMissing ? `MISSING ${n.type}` : "ERROR"} ${JSON.stringify(n.text.slice(0, 60))}`,
    );
}

/** The text of a string literal without interpolation, else undefined. */
export function stringValue(node: Node | undefined): string | undefined {
  if (node?.type !== "string") return undefined;
  if (node.namedChildren.some((c) => c.type === "interpolation")) return undefined;
  // Bicep escapes: \' \\ \n \r \t \$ ; enough for names and URLs.
  return node.text
    .slice(1, -1)
    .replace(/\\(.)/g, (_, c: string) => ({ n: "\n", r: "\r", t: "\t" })[c] ?? c);
}

function keyText(key: Node): string {
  return key.type === "string" ? (stringValue(key) ?? key.text) : key.text;
}

/** The value of `key` in an object node, following a path of keys. */
export function property(object: Node | undefined, ...path: string[]): Node | undefined {
  let current = object;
  for (const key of path) {
    if (current?.type !== "object") return undefined;
    const prop = current.namedChildren.find(
      (c) =>
        c.type === "object_property" && c.namedChildren[0] && keyText(c.namedChildren[0]) === key,
    );
    current = prop?.namedChildren[1];
  }
  return current;
}

/** Keys of an object node. */
export function keys(object: Node | undefined): string[] {
  if (object?.type !== "object") return [];
  return object.namedChildren
    .filter((c) => c.type === "object_property" && c.namedChildren[0])
    .map((c) => keyText(c.namedChildren[0] as Node));
}

function decoratorsBefore(node: Node): Node | undefined {
  let previous = node.previousNamedSibling;
  while (previous?.type === "comment") previous = previous.previousNamedSibling;
  return previous?.type === "decorators" ? previous : undefined;
}

function decoratorCall(decorator: Node): { name: string; args: Node[] } | undefined {
  const call = decorator.namedChildren.find((c) => c.type === "call_expression");
  const fn = call?.childForFieldName("function");
  if (!call || !fn) return undefined;
  // `@sys.description(...)` is the fully qualified form of `@description(...)`.
  const name = fn.type === "member_expression" ? (fn.lastNamedChild?.text ?? fn.text) : fn.text;
  const args = call.childForFieldName("arguments")?.namedChildren ?? [];
  return { name, args };
}

export function params(file: BicepFile): ParamDecl[] {
  return file.root.namedChildren
    .filter((n) => n.type === "parameter_declaration")
    .map((n) => {
      const calls = (decoratorsBefore(n)?.namedChildren ?? [])
        .filter((d) => d.type === "decorator")
        .map(decoratorCall)
        .filter((c) => c !== undefined);
      const allowedArg = calls.find((c) => c.name === "allowed")?.args[0];
      return {
        name: n.namedChildren[0]?.text ?? "",
        decorators: calls.map((c) => c.name),
        decoratorArgs: new Map(calls.map((c) => [c.name, c.args.map((a) => a.text)])),
        allowed:
          allowedArg?.type === "array"
            ? allowedArg.namedChildren.map((v) => stringValue(v) ?? v.text)
            : undefined,
        // param <name> <type> [= <default>]
        defaultValue: n.namedChildren.find((c, i) => i >= 2 && c.type !== "comment"),
      };
    });
}

/** The object a declaration assigns: `{...}`, `if (c) {...}`, `[for x in y: ...]` (possibly with `if`). */
function bodyOf(declaration: Node): Node | undefined {
  return objectOf(declaration.lastNamedChild);
}

function objectOf(value: Node | null): Node | undefined {
  if (value?.type === "object") return value;
  if (value?.type === "if_statement" || value?.type === "for_statement") {
    const inner = value.namedChildren.find(
      (c) => c.type === "object" || c.type === "if_statement" || c.type === "for_statement",
    );
    return objectOf(inner ?? null);
  }
  return undefined;
}

export function resources(file: BicepFile): ResourceDecl[] {
  return descendants(file.root)
    .filter((n) => n.type === "resource_declaration")
    .map((n) => ({
      symbol: n.namedChildren[0]?.text ?? "",
      type: stringValue(n.namedChildren[1]) ?? "",
      existing: n.children.some((c) => c.type === "existing"),
      conditional: n.lastNamedChild?.type === "if_statement",
      condition:
        n.lastNamedChild?.type === "if_statement"
          ? n.lastNamedChild.namedChildren[0]?.text.replace(/^\((.*)\)$/s, "$1")
          : undefined,
      body: bodyOf(n),
    }));
}

export function modules(file: BicepFile): ModuleDecl[] {
  return file.root.namedChildren
    .filter((n) => n.type === "module_declaration")
    .map((n) => ({
      symbol: n.namedChildren[0]?.text ?? "",
      source: stringValue(n.namedChildren[1]) ?? "",
      body: bodyOf(n),
    }));
}

/** Top-level `var` declarations by name. */
export function variables(file: BicepFile): Map<string, Node> {
  const out = new Map<string, Node>();
  for (const n of file.root.namedChildren) {
    if (n.type !== "variable_declaration") continue;
    const [name, value] = n.namedChildren;
    if (name && value) out.set(name.text, value);
  }
  return out;
}

/**
 * The string a node stands for when it can be known without deploying: a literal, a variable or
 * parameter default holding one, or `variable.key` of an object variable. Undefined otherwise.
 */
export function resolveString(file: BicepFile, node: Node | undefined): string | undefined {
  if (!node) return undefined;
  if (node.type === "string") return stringValue(node);
  const vars = variables(file);
  if (node.type === "identifier") {
    const fromVar = vars.get(node.text);
    if (fromVar) return resolveString(file, fromVar);
    return resolveString(file, params(file).find((p) => p.name === node.text)?.defaultValue);
  }
  if (node.type === "member_expression") {
    const object = node.childForFieldName("object");
    const prop = node.childForFieldName("property");
    if (object?.type !== "identifier" || !prop) return undefined;
    return resolveString(file, property(vars.get(object.text), prop.text));
  }
  return undefined;
}

/**
 * App settings: every `{ name: '<literal>', value: ... }` object, the shape of
 * siteConfig.appSettings entries, wherever the file builds them.
 */
export function appSettings(file: BicepFile): { name: string; value: Node | undefined }[] {
  return descendants(file.root)
    .filter((n) => n.type === "object")
    .filter((n) => {
      const k = keys(n);
      return k.length === 2 && k.includes("name") && k.includes("value");
    })
    .flatMap((n) => {
      const name = stringValue(property(n, "name"));
      return name === undefined ? [] : [{ name, value: property(n, "value") }];
    });
}

/** Every call of `fn(...)` under a node. */
export function calls(node: Node | undefined, fn: string): Node[] {
  if (!node) return [];
  return descendants(node).filter(
    (n) => n.type === "call_expression" && n.childForFieldName("function")?.text === fn,
  );
}
