import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { type BicepFile, type Node, stringValue } from "./bicepTree.js";

// Checks the resources declared in Bicep files against Azure's published resource types: the
// data the Bicep compiler itself type-checks with (Azure/bicep-types-az, one file per provider
// namespace and API version, copied into test/infra/azure-types/; its README explains the
// format). No Bicep compiler can be installed here, so this does the part of its job that
// catches real deployment failures: unknown types and API versions, misspelt or misplaced
// property names, enum values Azure rejects, required properties left out, read-only properties
// set.
//
// Values that are expressions (parameters, variables, function calls, interpolations) are not
// known before deployment and are skipped; literals, objects and arrays are checked, and both
// branches of a `cond ? a : b`.

// ---- The type data --------------------------------------------------------------------------

const ref = z.object({ $ref: z.string().regex(/^#\/\d+$/) });
type Ref = z.infer<typeof ref>;

/** Bit flags of an object property (bicep-types). */
export const PropertyFlags = { Required: 1, ReadOnly: 2, WriteOnly: 4, DeployTimeConstant: 8 };

const property = z.object({
  type: ref,
  flags: z.number().int(),
  description: z.string().optional(),
});
type Property = z.infer<typeof property>;
const properties = z.record(z.string(), property);

const typeNode = z.discriminatedUnion("$type", [
  z.object({ $type: z.literal("StringLiteralType"), value: z.string() }),
  z.object({
    $type: z.literal("StringType"),
    minLength: z.number().optional(),
    maxLength: z.number().optional(),
    pattern: z.string().optional(),
  }),
  z.object({
    $type: z.literal("IntegerType"),
    minValue: z.number().optional(),
    maxValue: z.number().optional(),
  }),
  z.object({ $type: z.literal("BooleanType") }),
  z.object({ $type: z.literal("AnyType") }),
  z.object({ $type: z.literal("NullType") }),
  z.object({
    $type: z.literal("ArrayType"),
    itemType: ref,
    minLength: z.number().optional(),
    maxLength: z.number().optional(),
  }),
  z.object({
    $type: z.literal("ObjectType"),
    name: z.string(),
    properties,
    additionalProperties: ref.optional(),
  }),
  z.object({
    $type: z.literal("DiscriminatedObjectType"),
    name: z.string(),
    discriminator: z.string(),
    baseProperties: properties,
    elements: z.record(z.string(), ref),
  }),
  z.object({ $type: z.literal("UnionType"), elements: z.array(ref) }),
  z.object({
    $type: z.literal("ResourceType"),
    name: z.string(),
    body: ref,
    readableScopes: z.number().optional(),
    writableScopes: z.number().optional(),
  }),
  z.object({ $type: z.literal("ResourceFunctionType") }),
]);
type TypeNode = z.infer<typeof typeNode>;
type ObjectTypeNode = Extract<TypeNode, { $type: "ObjectType" }>;

/** One data file: `microsoft.web@2024-04-01.json` is an array of type nodes. */
class TypeFile {
  constructor(
    readonly fileName: string,
    private readonly nodes: readonly TypeNode[],
  ) {}

  static read(path: string, fileName: string): TypeFile {
    const parsed = z.array(typeNode).safeParse(JSON.parse(readFileSync(path, "utf8")));
    if (!parsed.success) {
      throw new Error(`${fileName} is not bicep-types data: ${parsed.error.message.slice(0, 500)}`);
    }
    return new TypeFile(fileName, parsed.data);
  }

  resolve(r: Ref): TypeNode {
    const node = this.nodes[Number(r.$ref.slice(2))];
    if (!node) throw new Error(`${this.fileName}: dangling reference ${r.$ref}`);
    return node;
  }

  /** The resource type named `Type@apiVersion`, compared as ARM does: without regard to case. */
  resourceType(typeAndVersion: string): Extract<TypeNode, { $type: "ResourceType" }> | undefined {
    const wanted = typeAndVersion.toLowerCase();
    const matches = this.nodes.filter(
      (n): n is Extract<TypeNode, { $type: "ResourceType" }> =>
        n.$type === "ResourceType" && n.name.toLowerCase() === wanted,
    );
    // Extension resources may be listed once per scope; any writable one describes the body.
    return matches.find((n) => (n.writableScopes ?? 1) !== 0) ?? matches[0];
  }

  resourceTypeNames(): string[] {
    return this.nodes.flatMap((n) =>
      n.$type === "ResourceType" ? [n.name.split("@")[0] ?? ""] : [],
    );
  }
}

/** The data files of a directory, loaded on first use. */
export class AzureTypes {
  private readonly files = new Map<string, TypeFile>();

  constructor(readonly dir: string) {
    if (!existsSync(dir)) throw new Error(`no Azure type data at ${dir}`);
  }

  /** `microsoft.web@2024-04-01.json` for `Microsoft.Web/sites` at 2024-04-01. */
  static fileNameFor(type: string, apiVersion: string): string {
    return `${(type.split("/")[0] ?? type).toLowerCase()}@${apiVersion}.json`;
  }

  /** API versions with a data file for a provider namespace, e.g. ["2024-04-01"]. */
  versionsOf(namespace: string): string[] {
    const prefix = `${namespace.toLowerCase()}@`;
    return readdirSync(this.dir)
      .filter((name) => name.startsWith(prefix) && name.endsWith(".json"))
      .map((name) => name.slice(prefix.length, -".json".length))
      .sort();
  }

  file(type: string, apiVersion: string): TypeFile | undefined {
    const fileName = AzureTypes.fileNameFor(type, apiVersion);
    const cached = this.files.get(fileName);
    if (cached) return cached;
    const path = join(this.dir, fileName);
    if (!existsSync(path)) return undefined;
    const loaded = TypeFile.read(path, fileName);
    this.files.set(fileName, loaded);
    return loaded;
  }
}

// ---- The declarations -----------------------------------------------------------------------

/** A `resource` declaration, nested ones included, with what it resolves to. */
export interface DeclaredResource {
  readonly file: BicepFile;
  readonly symbol: string;
  /** The type string as written, e.g. "Microsoft.Web/sites@2024-04-01" or "secrets". */
  readonly written: string;
  /** Full type without the version, e.g. "Microsoft.KeyVault/vaults/secrets"; "" when unknown. */
  readonly type: string;
  readonly apiVersion: string;
  readonly existing: boolean;
  /** The object literal of the body (inside `if (...)` and `[for ...: ...]` too). */
  readonly body: Node | undefined;
  /** The resource this one is nested in, if any. */
  readonly enclosing: DeclaredResource | undefined;
  readonly line: number;
}

/** The object literal a declaration assigns: `{...}`, `if (c) {...}`, `[for x in y: ...]`. */
function declarationBody(value: Node | null | undefined): Node | undefined {
  if (!value) return undefined;
  if (value.type === "object") return value;
  if (value.type === "if_statement" || value.type === "for_statement") {
    return declarationBody(
      value.namedChildren.find(
        (c) => c.type === "object" || c.type === "if_statement" || c.type === "for_statement",
      ),
    );
  }
  return undefined;
}

/** Every resource declaration of a file, nested ones after their parent, in source order. */
export function declaredResources(file: BicepFile): DeclaredResource[] {
  const out: DeclaredResource[] = [];
  const visit = (declaration: Node, enclosing: DeclaredResource | undefined) => {
    const [name, typeNode] = declaration.namedChildren;
    const written = stringValue(typeNode) ?? typeNode?.text ?? "";
    const at = written.lastIndexOf("@");
    const typePart = at < 0 ? written : written.slice(0, at);
    let apiVersion = at < 0 ? "" : written.slice(at + 1);
    let type = typePart;
    // A nested resource may name only its last segment ('secrets'), taking the parent's type
    // and, without its own, the parent's API version.
    if (enclosing && !typePart.includes("/")) {
      type = enclosing.type ? `${enclosing.type}/${typePart}` : "";
      if (at < 0) apiVersion = enclosing.apiVersion;
    }
    const resource: DeclaredResource = {
      file,
      symbol: name?.text ?? "",
      written,
      type,
      apiVersion,
      existing: declaration.children.some((c) => c.type === "existing"),
      body: declarationBody(declaration.lastNamedChild),
      enclosing,
      line: declaration.startPosition.row + 1,
    };
    out.push(resource);
    for (const child of nestedDeclarations(resource.body)) visit(child, resource);
  };
  for (const node of file.root.namedChildren) {
    if (node.type === "resource_declaration") visit(node, undefined);
  }
  return out;
}

/** `resource` declarations written inside a body (each wrapped in an object_property). */
function nestedDeclarations(body: Node | undefined): Node[] {
  return (body?.namedChildren ?? []).flatMap((p) =>
    p.type === "object_property" && p.namedChildren[0]?.type === "resource_declaration"
      ? [p.namedChildren[0]]
      : [],
  );
}

// ---- The check ------------------------------------------------------------------------------

export interface TypeProblem {
  /** "infra/modules/storage.bicep:12" */
  readonly where: string;
  /** "storage (Microsoft.Storage/storageAccounts@2023-05-01)" */
  readonly resource: string;
  /** Property path inside the resource body, e.g. "properties.networkAcls.bypass". */
  readonly path: string;
  readonly message: string;
}

export function formatProblem(p: TypeProblem): string {
  return `${p.where} ${p.resource}${p.path ? ` ${p.path}` : ""}: ${p.message}`;
}

/** Keys of a resource body that are Bicep syntax, not properties of the resource. */
const BICEP_RESOURCE_KEYS = new Set(["parent", "scope", "dependsOn"]);
/** The only keys an `existing` resource may have. */
const EXISTING_KEYS = new Set(["name", "scope", "parent"]);
const API_VERSION = /^\d{4}-\d{2}-\d{2}(-[a-z]+)?$/;

interface Entry {
  readonly key: string | undefined;
  readonly keyText: string;
  readonly value: Node | undefined;
}

function entries(object: Node): Entry[] {
  return object.namedChildren
    .filter((c) => c.type === "object_property")
    .filter((c) => c.namedChildren[0]?.type !== "resource_declaration")
    .map((c) => {
      const keyNode = c.namedChildren[0];
      const key =
        keyNode?.type === "string"
          ? stringValue(keyNode)
          : keyNode?.type === "identifier"
            ? keyNode.text
            : undefined;
      return { key, keyText: keyNode?.text ?? "", value: c.namedChildren[1] };
    });
}

function quote(values: readonly string[], max = 12): string {
  const shown = values.slice(0, max).map((v) => `'${v}'`);
  return values.length > max
    ? `${shown.join(", ")}, … (${values.length} in all)`
    : shown.join(", ");
}

class Checker {
  readonly problems: TypeProblem[] = [];

  constructor(
    private readonly resource: DeclaredResource,
    private readonly data: TypeFile,
  ) {}

  report(path: string, message: string, node?: Node) {
    const r = this.resource;
    this.problems.push({
      where: `${r.file.path}:${node ? node.startPosition.row + 1 : r.line}`,
      resource: `${r.symbol} (${r.type}@${r.apiVersion})`,
      path,
      message,
    });
  }

  describe(type: TypeNode, depth = 0): string {
    switch (type.$type) {
      case "StringLiteralType":
        return `'${type.value}'`;
      case "StringType":
        return "string";
      case "IntegerType":
        return "int";
      case "BooleanType":
        return "bool";
      case "AnyType":
        return "any";
      case "NullType":
        return "null";
      case "ArrayType":
        return "array";
      case "ObjectType":
      case "DiscriminatedObjectType":
        return `object (${type.name})`;
      case "UnionType":
        return depth > 0
          ? "union"
          : type.elements.map((e) => this.describe(this.data.resolve(e), 1)).join(" | ");
      default:
        return type.$type;
    }
  }

  /** A value against a type; skips what only deployment can know. */
  value(node: Node | undefined, type: TypeNode, path: string): void {
    if (!node) return;
    switch (node.type) {
      case "parenthesized_expression":
        this.value(node.namedChildren[0], type, path);
        break;
      case "ternary_expression": {
        const [, whenTrue, whenFalse] = node.namedChildren;
        this.value(whenTrue, type, path);
        this.value(whenFalse, type, path);
        break;
      }
      case "object":
        this.object(node, type, path);
        break;
      case "array":
        this.array(node, type, path);
        break;
      case "string": {
        const literal = stringValue(node);
        if (literal === undefined) this.kind(node, type, path, "string");
        else this.string(node, literal, type, path);
        break;
      }
      case "number":
        this.integer(node, Number(node.text), type, path);
        break;
      case "boolean":
        this.kind(node, type, path, "bool");
        break;
      default:
        // null leaves an optional property unset (the required check looks at keys only);
        // identifiers, member access, function calls, operators are known at deployment.
        break;
    }
  }

  /** Whether a type accepts values of a kind, through unions. */
  accepts(type: TypeNode, kind: "string" | "int" | "bool" | "object" | "array"): boolean {
    switch (type.$type) {
      case "AnyType":
        return true;
      case "UnionType":
        return type.elements.some((e) => this.accepts(this.data.resolve(e), kind));
      case "StringType":
      case "StringLiteralType":
        return kind === "string";
      case "IntegerType":
        return kind === "int";
      case "BooleanType":
        return kind === "bool";
      case "ArrayType":
        return kind === "array";
      case "ObjectType":
      case "DiscriminatedObjectType":
        return kind === "object";
      default:
        return false;
    }
  }

  kind(
    node: Node,
    type: TypeNode,
    path: string,
    kind: "string" | "int" | "bool" | "object" | "array",
  ) {
    if (!this.accepts(type, kind)) {
      this.report(
        path,
        `expects ${this.describe(type)}, not ${kind === "int" ? "an int" : `a ${kind}`}`,
        node,
      );
      return false;
    }
    return true;
  }

  string(node: Node, literal: string, type: TypeNode, path: string) {
    if (!this.kind(node, type, path, "string")) return;
    const alternatives =
      type.$type === "UnionType" ? type.elements.map((e) => this.data.resolve(e)) : [type];
    const strings = alternatives.filter((t) => t.$type === "StringType" || t.$type === "AnyType");
    const literals = alternatives.flatMap((t) =>
      t.$type === "StringLiteralType" ? [t.value] : [],
    );
    if (strings.length === 0) {
      if (literals.includes(literal)) return;
      const sameButCase = literals.find((l) => l.toLowerCase() === literal.toLowerCase());
      this.report(
        path,
        `'${literal}' is not allowed: expected ${quote(literals)}` +
          (sameButCase ? ` (did you mean '${sameButCase}'?)` : ""),
        node,
      );
      return;
    }
    for (const t of strings) {
      if (t.$type !== "StringType") return;
      const tooShort = t.minLength !== undefined && literal.length < t.minLength;
      const tooLong = t.maxLength !== undefined && literal.length > t.maxLength;
      let mismatch = false;
      if (t.pattern !== undefined) {
        try {
          mismatch = !new RegExp(t.pattern).test(literal);
        } catch {
          // A .NET-only construct: leave the pattern to Azure.
        }
      }
      if (!tooShort && !tooLong && !mismatch) return;
      this.report(
        path,
        `'${literal}' breaks the string rule` +
          (t.minLength !== undefined ? ` minLength ${t.minLength}` : "") +
          (t.maxLength !== undefined ? ` maxLength ${t.maxLength}` : "") +
          (t.pattern !== undefined ? ` pattern ${t.pattern}` : ""),
        node,
      );
      return;
    }
  }

  integer(node: Node, value: number, type: TypeNode, path: string) {
    if (!this.kind(node, type, path, "int")) return;
    const ints =
      type.$type === "UnionType" ? type.elements.map((e) => this.data.resolve(e)) : [type];
    for (const t of ints) {
      if (t.$type !== "IntegerType") continue;
      if (
        (t.minValue !== undefined && value < t.minValue) ||
        (t.maxValue !== undefined && value > t.maxValue)
      ) {
        this.report(path, `${value} is outside ${t.minValue ?? "-∞"}..${t.maxValue ?? "∞"}`, node);
      }
    }
  }

  array(node: Node, type: TypeNode, path: string) {
    if (!this.kind(node, type, path, "array")) return;
    const arrays =
      type.$type === "UnionType" ? type.elements.map((e) => this.data.resolve(e)) : [type];
    const arrayType = arrays.find((t) => t.$type === "ArrayType");
    if (arrayType?.$type !== "ArrayType") return;
    const item = this.data.resolve(arrayType.itemType);
    node.namedChildren
      .filter((c) => c.type !== "comment")
      .forEach((c, i) => {
        this.value(c, item, `${path}[${i}]`);
      });
  }

  /** An object literal: property names, their values, required ones. */
  object(node: Node, type: TypeNode, path: string, resourceBody = false) {
    if (!this.kind(node, type, path, "object")) return;
    let objectType = type;
    if (objectType.$type === "UnionType") {
      const objects = objectType.elements
        .map((e) => this.data.resolve(e))
        .filter((t) => this.accepts(t, "object"));
      // Several object shapes and no discriminator: nothing certain to check.
      if (objects.length !== 1 || !objects[0]) return;
      objectType = objects[0];
    }
    if (objectType.$type === "AnyType") return;

    const found = entries(node);
    let props: Record<string, Property>;
    let additional: Ref | undefined;
    let checkRequired = true;
    if (objectType.$type === "ObjectType") {
      props = objectType.properties;
      additional = objectType.additionalProperties;
    } else if (objectType.$type === "DiscriminatedObjectType") {
      const tag = found.find((e) => e.key === objectType.discriminator);
      const tagValue = tag?.value?.type === "string" ? stringValue(tag.value) : undefined;
      const variants = Object.keys(objectType.elements);
      const chosen = tagValue === undefined ? undefined : objectType.elements[tagValue];
      if (tagValue !== undefined && !chosen) {
        this.report(
          path ? `${path}.${objectType.discriminator}` : objectType.discriminator,
          `'${tagValue}' is not allowed: expected ${quote(variants)}`,
          tag?.value ?? node,
        );
        return;
      }
      const elements = (chosen ? [chosen] : Object.values(objectType.elements))
        .map((e) => this.data.resolve(e))
        .filter((e): e is ObjectTypeNode => e.$type === "ObjectType");
      props = { ...objectType.baseProperties };
      for (const e of elements) Object.assign(props, e.properties);
      // Which variant applies is known only from a literal discriminator.
      checkRequired = chosen !== undefined;
      if (!chosen) {
        for (const [name, p] of Object.entries(objectType.baseProperties)) {
          if (p.flags & PropertyFlags.Required && !found.some((e) => e.key === name)) {
            this.report(path, `missing required property '${name}'`, node);
          }
        }
      }
    } else {
      return;
    }

    const names = Object.keys(props);
    for (const entry of found) {
      const at = path ? `${path}.${entry.key ?? entry.keyText}` : (entry.key ?? entry.keyText);
      if (resourceBody && entry.key !== undefined && BICEP_RESOURCE_KEYS.has(entry.key)) continue;
      if (entry.key === undefined) {
        // An interpolated key: only a map (additionalProperties) can take it.
        if (additional) this.value(entry.value, this.data.resolve(additional), at);
        continue;
      }
      const prop = props[entry.key];
      if (prop) {
        if (prop.flags & PropertyFlags.ReadOnly) {
          this.report(at, "is read-only: Azure sets it, a template cannot", entry.value ?? node);
          continue;
        }
        this.value(entry.value, this.data.resolve(prop.type), at);
      } else if (additional) {
        this.value(entry.value, this.data.resolve(additional), at);
      } else {
        const key = entry.key;
        const sameButCase = names.find((n) => n.toLowerCase() === key.toLowerCase());
        const settable = names.filter((n) => !((props[n]?.flags ?? 0) & PropertyFlags.ReadOnly));
        this.report(
          at,
          sameButCase
            ? `unknown property '${key}' (did you mean '${sameButCase}'?)`
            : `unknown property '${key}': ${this.describe(objectType)} has ${quote(settable.sort(), 20)}`,
          entry.value ?? node,
        );
      }
    }

    if (!checkRequired) return;
    for (const [name, p] of Object.entries(props)) {
      if (!(p.flags & PropertyFlags.Required) || p.flags & PropertyFlags.ReadOnly) continue;
      if (!found.some((e) => e.key === name)) {
        this.report(path, `missing required property '${name}'`, node);
      }
    }
  }
}

/** Every problem of the given resource declarations (declaredResources of each file). */
export function checkResources(
  resources: readonly DeclaredResource[],
  types: AzureTypes,
): TypeProblem[] {
  const problems: TypeProblem[] = [];
  const report = (r: DeclaredResource, message: string, path = "") =>
    problems.push({
      where: `${r.file.path}:${r.line}`,
      resource:
        r.type && r.apiVersion
          ? `${r.symbol} (${r.type}@${r.apiVersion})`
          : `${r.symbol} ('${r.written}')`,
      path,
      message,
    });

  for (const r of resources) {
    if (!r.type || !r.apiVersion) {
      report(r, "the type must be a literal 'Namespace/type@apiVersion'");
      continue;
    }
    if (!API_VERSION.test(r.apiVersion)) {
      report(r, `'${r.apiVersion}' is not an API version (yyyy-mm-dd, optionally -preview)`);
      continue;
    }
    if (r.enclosing && !r.type.toLowerCase().startsWith(`${r.enclosing.type.toLowerCase()}/`)) {
      report(
        r,
        `a resource nested in ${r.enclosing.symbol} must be a child type of ${r.enclosing.type}`,
      );
    }
    const parentSymbol = r.body
      ? entries(r.body).find((e) => e.key === "parent")?.value
      : undefined;
    if (parentSymbol) {
      const parent = resources.find((p) => p.file === r.file && p.symbol === parentSymbol.text);
      const expected = r.type.split("/").slice(0, -1).join("/");
      if (!parent) {
        report(
          r,
          `parent '${parentSymbol.text}' is not a resource declared in this file`,
          "parent",
        );
      } else if (parent.type.toLowerCase() !== expected.toLowerCase()) {
        report(
          r,
          `parent ${parent.symbol} is a ${parent.type}, and ${r.type} needs a ${expected}`,
          "parent",
        );
      }
    }

    const namespace = r.type.split("/")[0] ?? r.type;
    const data = types.file(r.type, r.apiVersion);
    if (!data) {
      const fileName = AzureTypes.fileNameFor(r.type, r.apiVersion);
      const known = types.versionsOf(namespace);
      report(
        r,
        `no type data for ${namespace} at API version ${r.apiVersion}: add ${fileName} to ${types.dir} ` +
          `(Azure/bicep-types-az generated/…/${namespace.toLowerCase()}/${r.apiVersion}/types.json)` +
          (known.length > 0 ? `; data here covers ${namespace} at ${known.join(", ")}` : ""),
      );
      continue;
    }
    const resourceType = data.resourceType(`${r.type}@${r.apiVersion}`);
    if (!resourceType) {
      const siblings = data
        .resourceTypeNames()
        .filter((n) => n.split("/").length === r.type.split("/").length);
      report(
        r,
        `${r.type} is not a resource type at API version ${r.apiVersion} (${data.fileName}): ` +
          `known there: ${quote(siblings, 15)}`,
      );
      continue;
    }
    if (!r.body) {
      report(r, "no object body found to check");
      continue;
    }
    if (!r.existing && resourceType.writableScopes === 0) {
      report(r, `${r.type} can be read, not deployed: declare it \`existing\``);
      continue;
    }
    if (r.existing) {
      for (const e of entries(r.body)) {
        if (e.key === undefined || !EXISTING_KEYS.has(e.key)) {
          report(
            r,
            `an existing resource takes only name, scope and parent, not '${e.key ?? e.keyText}'`,
            e.key ?? e.keyText,
          );
        }
      }
      continue;
    }
    const checker = new Checker(r, data);
    checker.object(r.body, data.resolve(resourceType.body), "", true);
    problems.push(...checker.problems);
  }
  return problems;
}
