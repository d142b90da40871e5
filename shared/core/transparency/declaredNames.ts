import { escapeControl } from "../../lib/text/escapeControl.js";
import { jsonSyntaxProblem } from "../../lib/text/jsonSyntax.js";
import { dnsName, quotedName } from "./dnsName.js";
import type { WatchedName } from "./issuance.js";
import { boundedProblems, MAX_WATCHED_NAMES } from "./watchedNames.js";

/**
 * CERTSCHED_CT_DOMAINS: names the operator wants watched beyond the inventory's. A JSON array
 * whose entries are either a name, `"example.org"` (with its subdomains), or an object
 * `{"name": "host.example.net", "subdomains": false}` (`subdomains` defaults to true). Every bad
 * entry is named by its place (`CERTSCHED_CT_DOMAINS[2].name: ...`); unknown fields are refused.
 */

const SHAPE = `a JSON array of names: "example.org" (with its subdomains) or {"name": "host.example.net", "subdomains": false}`;
const FIELDS = new Set(["name", "subdomains"]);

export interface DeclaredNames {
  readonly names: WatchedName[];
  /** One line per bad entry, each starting with the label and the entry's place. */
  readonly problems: string[];
}

/** The setting parsed; blank or absent: no names. */
export function parseDeclaredNames(text: string | undefined, label: string): DeclaredNames {
  if (text === undefined || text.trim() === "") return { names: [], problems: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { names: [], problems: [`${label}: ${jsonSyntaxProblem(error)}; it must be ${SHAPE}`] };
  }
  if (!Array.isArray(value)) return { names: [], problems: [`${label}: must be ${SHAPE}`] };
  if (value.length > MAX_WATCHED_NAMES) {
    return {
      names: [],
      problems: [
        `${label}: at most ${MAX_WATCHED_NAMES} names are watched (it has ${value.length})`,
      ],
    };
  }
  const names: WatchedName[] = [];
  const problems: string[] = [];
  value.forEach((entry: unknown, index) => {
    const parsed = declaredEntry(entry, `${label}[${index}]`);
    if (typeof parsed === "string") problems.push(parsed);
    else names.push(parsed);
  });
  return { names, problems: boundedProblems(problems) };
}

/** One entry, or its problem (starting with its place). */
function declaredEntry(entry: unknown, place: string): WatchedName | string {
  if (typeof entry === "string") return declaredName(entry, true, place);
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    return `${place}: must be a name ("example.org") or {"name": "host.example.net", "subdomains": false}`;
  }
  const unknown = Object.keys(entry).filter((key) => !FIELDS.has(key));
  if (unknown.length > 0) {
    const shown = unknown.slice(0, 3).map((key) => `"${escapeControl(key.slice(0, 40))}"`);
    return `${place}: unknown field ${shown.join(", ")} (the fields are "name" and "subdomains")`;
  }
  const { name, subdomains } = entry as { name?: unknown; subdomains?: unknown };
  if (typeof name !== "string") return `${place}.name: must be a DNS name (a string)`;
  if (subdomains !== undefined && typeof subdomains !== "boolean") {
    return `${place}.subdomains: must be true or false`;
  }
  return declaredName(name, subdomains ?? true, `${place}.name`);
}

function declaredName(text: string, subdomains: boolean, place: string): WatchedName | string {
  if (text.trim().startsWith("*.")) {
    return `${place}: ${quotedName(text)} is a wildcard: write the name without "*." (its subdomains are watched)`;
  }
  const parsed = dnsName(text);
  if ("problem" in parsed) return `${place}: ${quotedName(text)} ${parsed.problem}`;
  return { name: parsed.name, subdomains, source: "setting" };
}
