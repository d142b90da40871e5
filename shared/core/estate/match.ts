import type { InventoryRecord } from "../ports/inventory.js";
import type { EstateCertificate } from "./estate.js";
import { hostNameOf, thumbprintOf } from "./normalize.js";

/** How a discovered certificate was found to be certsched's. */
export type EstateMatch = "vault" | "thumbprint" | "name";

export interface Managed {
  readonly certificateName: string;
  readonly match: EstateMatch;
}

/** `https://{vault}.vault.{cloud}/{certificates|secrets}/{name}[/{version}]`: vault and name, lower-case. */
export function vaultCertificateOf(
  id: string | undefined,
): { vault: string; name: string } | undefined {
  if (id === undefined) return undefined;
  const m =
    /^https:\/\/([a-z0-9-]{1,64})\.vault\.[a-z0-9.-]+\/(?:certificates|secrets)\/([a-z0-9-]{1,127})(?:\/[a-z0-9]*)?\/?$/i.exec(
      id,
    );
  return m ? { vault: String(m[1]).toLowerCase(), name: String(m[2]).toLowerCase() } : undefined;
}

/** The SHA-1 thumbprint the last verification read, when it kept one (a field some rows lack). */
function recordThumbprint(record: InventoryRecord): string | undefined {
  const verification = record.lastVerification as { sha1Thumbprint?: unknown } | undefined;
  return thumbprintOf(verification?.sha1Thumbprint);
}

function sameVault(certificate: EstateCertificate, record: InventoryRecord): boolean {
  if (record.keyVaultName === undefined) return false;
  const vault = record.keyVaultName.toLowerCase();
  const name = (record.keyVaultCertificateName || record.certificateName).toLowerCase();
  return [certificate.keyVaultId, certificate.kind === "key-vault" ? certificate.id : undefined]
    .map(vaultCertificateOf)
    .some((found) => found !== undefined && found.vault === vault && found.name === name);
}

/**
 * The inventory record that keeps `certificate`: by vault id first, then by thumbprint, then by
 * name (case-insensitive); among several records of one kind, the first by certificateName.
 */
export function managedBy(
  certificate: EstateCertificate,
  records: readonly InventoryRecord[],
): Managed | undefined {
  const sorted = [...records].sort((a, b) => (a.certificateName < b.certificateName ? -1 : 1));
  const thumbprint = thumbprintOf(certificate.thumbprint);
  const name = certificate.name.toLowerCase();
  const rules: [EstateMatch, (record: InventoryRecord) => boolean][] = [
    ["vault", (record) => sameVault(certificate, record)],
    ["thumbprint", (record) => thumbprint !== undefined && recordThumbprint(record) === thumbprint],
    ["name", (record) => record.certificateName.toLowerCase() === name],
  ];
  for (const [match, test] of rules) {
    const record = sorted.find(test);
    if (record) return { certificateName: record.certificateName, match };
  }
  return undefined;
}

/** A name covers another: equal, or a wildcard `*.x` and a name of one more label under x. */
export function coversName(a: string, b: string): boolean {
  if (a === b) return true;
  const wildcardOver = (w: string, n: string) =>
    w.startsWith("*.") &&
    !n.startsWith("*.") &&
    n.slice(n.indexOf(".") + 1) === w.slice(2) &&
    n.indexOf(".") > 0;
  return wildcardOver(a, b) || wildcardOver(b, a);
}

/** Every host name certsched renews (records' rootDomain and SAN names), valid ones only. */
export function renewedHostNames(records: readonly InventoryRecord[]): string[] {
  const names = new Set<string>();
  for (const record of records) {
    if (record.certificateName.startsWith("watch:")) continue;
    for (const value of [record.rootDomain, ...(record.sanNames ?? [])]) {
      const name = hostNameOf(value);
      if (name !== undefined) names.add(name);
    }
  }
  return [...names];
}

/** The host names `certificate` is bound to or covers that certsched renews. */
export function renewedNamesOf(
  certificate: EstateCertificate,
  renewed: readonly string[],
): string[] {
  const own = [...certificate.hostNames, ...certificate.boundTo.map((binding) => binding.hostName)]
    .map(hostNameOf)
    .filter((name): name is string => name !== undefined);
  return [...new Set(own)].filter((name) => renewed.some((r) => coversName(r, name)));
}
