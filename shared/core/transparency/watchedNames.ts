import { someNames } from "../../lib/text/names.js";
import { WATCH_PREFIX } from "../inventory/watch.js";
import type { InventoryRecord } from "../ports/inventory.js";
import { dnsName, quotedName } from "./dnsName.js";
import type { WatchedName } from "./issuance.js";

/**
 * Which names the Certificate Transparency watch asks about for one account: each known
 * certificate's root domain with its subdomains, each of its SAN names not already under that,
 * and the names the operator declares (CERTSCHED_CT_DOMAINS, parsed in declaredNames.ts).
 *
 * A wildcard SAN `*.x.y` is asked as `x.y` without subdomains: asking `x.y` with subdomains
 * would report every certificate at any depth below it, which the wildcard does not cover.
 * Asked alone, `x.y` finds the certificates that name it (a wildcard certificate usually names
 * its parent too) and, as the adapter asks with match_wildcards, those naming `*.y`. A
 * certificate naming only `*.x.y`, outside every root asked with subdomains, may be missed:
 * declare `x.y` (with its subdomains) to watch it.
 */

/** Most names asked per account and run: each costs at least one request of the allowance. */
export const MAX_WATCHED_NAMES = 500;
/** Problems listed one by one; the rest are counted in one line. */
export const MAX_NAME_PROBLEMS = 20;

export interface WatchedNames {
  /** Sorted by name; none under another asked with subdomains. */
  readonly names: WatchedName[];
  /** Names refused or left out, in words, at most MAX_NAME_PROBLEMS + 2 lines. */
  readonly problems: string[];
}

/** A name to consider, and where it came from for a problem. */
interface Candidate {
  readonly text: string;
  readonly subdomains: boolean;
  readonly source: WatchedName["source"];
  readonly from: string;
}

export function watchedNames(
  records: readonly InventoryRecord[],
  declared: readonly WatchedName[],
): WatchedNames {
  const problems: string[] = [];
  const byName = new Map<string, WatchedName>();
  for (const candidate of [...candidatesOf(records), ...declared.map(declaredCandidate)]) {
    const parsed = dnsName(candidate.text);
    if ("problem" in parsed) {
      problems.push(
        `${candidate.from}: ${quotedName(candidate.text)} ${parsed.problem}: not watched`,
      );
      continue;
    }
    const name = { name: parsed.name, subdomains: candidate.subdomains, source: candidate.source };
    byName.set(parsed.name, wider(byName.get(parsed.name), name));
  }
  const kept = [...byName.values()].filter((n) => !coveredByAnother(n.name, byName));
  const { names, left } = bounded(kept);
  const refused = boundedProblems(problems);
  if (left.length > 0) {
    refused.push(
      `${left.length} names are not watched: at most ${MAX_WATCHED_NAMES} names are watched per account (${someNames(left.map((n) => n.name))})`,
    );
  }
  return { names, problems: refused };
}

/** Each certificate's root domain (with subdomains) and SAN names; `watch:` rows name endpoints. */
function candidatesOf(records: readonly InventoryRecord[]): Candidate[] {
  const candidates: Candidate[] = [];
  for (const record of records) {
    const root = record.rootDomain?.trim() ?? "";
    if (root === "" && record.certificateName.startsWith(WATCH_PREFIX)) continue;
    const from = `certificate ${quotedName(record.certificateName)}`;
    if (root !== "") candidates.push(inventoryName(root, true, from));
    for (const san of record.sanNames ?? []) candidates.push(inventoryName(san, false, from));
  }
  return candidates;
}

function inventoryName(text: string, subdomains: boolean, from: string): Candidate {
  const trimmed = text.trim();
  const wildcard = trimmed.startsWith("*.");
  return {
    text: wildcard ? trimmed.slice(2) : trimmed,
    subdomains: wildcard ? false : subdomains,
    source: "inventory",
    from,
  };
}

const declaredCandidate = (n: WatchedName): Candidate => ({
  text: n.name,
  subdomains: n.subdomains,
  source: n.source,
  from: "the declared names",
});

/** Of two askings of one name, the wider; on a tie the inventory's (a certificate certsched keeps). */
function wider(stored: WatchedName | undefined, next: WatchedName): WatchedName {
  if (stored === undefined) return next;
  if (stored.subdomains !== next.subdomains) return stored.subdomains ? stored : next;
  return stored.source === "inventory" ? stored : next;
}

/** Whether a parent of the name (not the name itself) is asked with subdomains. */
function coveredByAnother(name: string, byName: ReadonlyMap<string, WatchedName>): boolean {
  const labels = name.split(".");
  for (let i = 1; i < labels.length; i++) {
    const parent = labels.slice(i).join(".");
    if (byName.get(parent)?.subdomains === true) return true;
  }
  return false;
}

/** The names kept, sorted by name: declared names first when there are too many. */
function bounded(all: readonly WatchedName[]): { names: WatchedName[]; left: WatchedName[] } {
  const byName = (a: WatchedName, b: WatchedName) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  const priority = [...all].sort(
    (a, b) => Number(a.source === "inventory") - Number(b.source === "inventory") || byName(a, b),
  );
  return {
    names: priority.slice(0, MAX_WATCHED_NAMES).sort(byName),
    left: priority.slice(MAX_WATCHED_NAMES).sort(byName),
  };
}

/** At most MAX_NAME_PROBLEMS lines, then how many more. */
export function boundedProblems(problems: readonly string[]): string[] {
  if (problems.length <= MAX_NAME_PROBLEMS) return [...problems];
  const more = problems.length - MAX_NAME_PROBLEMS;
  return [...problems.slice(0, MAX_NAME_PROBLEMS), `and ${more} more names refused`];
}
