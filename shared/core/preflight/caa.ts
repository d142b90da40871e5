import type { CaaRecord } from "../ports/preflightProbes.js";

/**
 * RFC 8659 (DNS Certification Authority Authorization), as a CA reads it before it issues: the
 * relevant record set is the closest non-empty CAA set at or above the domain, and its `issue`
 * (or, for a wildcard, `issuewild`) tags say which CAs may issue. Pure: caaCheck asks DNS.
 */

/** Tags certsched understands (RFC 8659 4.2–4.4, RFC 8657, RFC 9495 and the CA/B BR additions). */
export const UNDERSTOOD_CAA_TAGS: readonly string[] = [
  "issue",
  "issuewild",
  "iodef",
  "contactemail",
  "contactphone",
  "issuemail",
  "issuevmc",
];

/** The issuer-critical flag (RFC 8659 4.1: bit 0 of the flags octet, 128 as a number). */
export const CAA_CRITICAL = 128;

/** The tag whose records decide. */
export type CaaProperty = "issue" | "issuewild";

export type CaaDecision =
  /** No CAA record at or above the domain: any CA may issue. */
  | { readonly allowed: true; readonly why: "no-caa" }
  /** The set has no tag that restricts issuance for this kind of name. */
  | {
      readonly allowed: true;
      readonly why: "no-issue-tags";
      readonly records: readonly CaaRecord[];
    }
  /** `record` names one of the CA identifiers. */
  | {
      readonly allowed: true;
      readonly why: "allowed";
      readonly property: CaaProperty;
      readonly record: CaaRecord;
    }
  /** None of `records` (every `property` tag of the set) names a CA identifier. */
  | {
      readonly allowed: false;
      readonly why: "not-allowed";
      readonly property: CaaProperty;
      readonly records: readonly CaaRecord[];
    }
  /** `records` carry the critical flag on a tag certsched does not understand: no CA may issue. */
  | {
      readonly allowed: false;
      readonly why: "critical-unknown";
      readonly records: readonly CaaRecord[];
    };

/** The name CAA lookups start at: a wildcard `*.a.b` starts at `a.b` (RFC 8659 3). */
export function caaStartName(domain: string): string {
  return domain.trim().toLowerCase().replace(/\.$/, "").replace(/^\*\./, "");
}

export function isWildcard(domain: string): boolean {
  return domain.trim().startsWith("*.");
}

/**
 * The names whose CAA sets are looked up, closest first: the start name, then each parent,
 * stopping before the root (`www.contoso.com` → `www.contoso.com`, `contoso.com`, `com`).
 */
export function caaNames(domain: string): string[] {
  const labels = caaStartName(domain).split(".");
  if (labels.some((label) => label === "")) return [];
  return labels.map((_, i) => labels.slice(i).join("."));
}

/** The issuer domain of an issue/issuewild value: before `;`, trimmed, lower case ("" = nobody). */
export function issuerDomain(value: string): string {
  return (value.split(";")[0] ?? "").trim().toLowerCase();
}

const tagOf = (record: CaaRecord): string => record.tag.toLowerCase();

/**
 * Whether the relevant set `records` (found at or above `domain`; empty when there is none)
 * allows any of `caIdentifiers` to issue for `domain`.
 */
export function decideCaa(
  domain: string,
  records: readonly CaaRecord[],
  caIdentifiers: readonly string[],
): CaaDecision {
  if (records.length === 0) return { allowed: true, why: "no-caa" };
  // RFC 8659 4.1: a critical tag the CA does not understand forbids issuance.
  const critical = records.filter(
    (r) => (r.flags & CAA_CRITICAL) !== 0 && !UNDERSTOOD_CAA_TAGS.includes(tagOf(r)),
  );
  if (critical.length > 0) return { allowed: false, why: "critical-unknown", records: critical };
  const issuewild = records.filter((r) => tagOf(r) === "issuewild");
  // RFC 8659 4.3: issuewild applies to wildcards only, and when present replaces issue for them.
  const property: CaaProperty = isWildcard(domain) && issuewild.length > 0 ? "issuewild" : "issue";
  const deciding =
    property === "issuewild" ? issuewild : records.filter((r) => tagOf(r) === "issue");
  if (deciding.length === 0) return { allowed: true, why: "no-issue-tags", records };
  const wanted = new Set(caIdentifiers.map((id) => id.trim().toLowerCase()));
  const record = deciding.find((r) => {
    const issuer = issuerDomain(r.value);
    return issuer !== "" && wanted.has(issuer);
  });
  if (record) return { allowed: true, why: "allowed", property, record };
  return { allowed: false, why: "not-allowed", property, records: deciding };
}
