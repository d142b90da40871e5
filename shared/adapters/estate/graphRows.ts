import { z } from "zod";
import {
  type EstateBinding,
  type EstateCertificate,
  MAX_BINDINGS,
  MAX_ESTATE_TEXT,
  MAX_HOST_NAMES,
} from "../../core/estate/estate.js";
import type { VaultRef } from "../../core/ports/estate.js";
import { boundDetail } from "../../lib/text/boundDetail.js";

/**
 * Resource Graph's rows, validated (zod) and made into the estate's certificates: every text
 * escaped and bounded, ids and host names lower-case, thumbprints normalised to 40 upper hex.
 * A row that is not right is left out and counted by the caller.
 */

const text = z.string().max(100_000).optional().catch(undefined);
const base = {
  id: z.string().min(1).max(2000),
  subscriptionId: z.string().max(100),
  resourceGroup: text,
};

export const certificateRow = z.object({
  ...base,
  name: z.string().max(100_000),
  thumbprint: text,
  expirationDate: text,
  issueDate: text,
  issuer: text,
  subjectName: text,
  hostNames: z.array(z.unknown()).max(100_000).optional().catch(undefined),
  keyVaultId: text,
  keyVaultSecretName: text,
});

export const bindingRow = z.object({
  id: z.string().min(1).max(2000),
  type: z.string().max(200),
  hostName: text,
  thumbprint: text,
});

export const vaultRow = z.object({ ...base, name: z.string().max(200) });

/** Escaped, bounded text; undefined for empty. */
export function shown(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === ""
    ? undefined
    : boundDetail(value, MAX_ESTATE_TEXT);
}

/** A thumbprint as Azure shows it: separators and spaces dropped, upper-case, 40 hex; else undefined. */
export function thumbprintOf(value: string | undefined): string | undefined {
  const hex = value?.replace(/[\s:-]/g, "").toUpperCase();
  return hex !== undefined && /^[0-9A-F]{40}$/.test(hex) ? hex : undefined;
}

/** A date Azure wrote (ISO-8601, with or without zone, or Date's other forms); undefined if none. */
export function dateOf(value: string | undefined): Date | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const trimmed = value.trim();
  // An ISO date-time without a zone is UTC in ARM's answers.
  const zoned = /T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(trimmed) ? `${trimmed}Z` : trimmed;
  const ms = Date.parse(zoned);
  return Number.isNaN(ms) || Math.abs(ms) > 8.64e15 ? undefined : new Date(ms);
}

/** Host names: lower-case, escaped, deduplicated, at most MAX_HOST_NAMES (the rest counted). */
export function hostNamesOf(values: readonly unknown[]): { hostNames: string[]; more: number } {
  const names = [
    ...new Set(
      values
        .filter((v): v is string => typeof v === "string" && v !== "")
        .map((v) => shown(v.toLowerCase()) ?? ""),
    ),
  ].filter((v) => v !== "");
  return {
    hostNames: names.slice(0, MAX_HOST_NAMES),
    more: Math.max(0, names.length - MAX_HOST_NAMES),
  };
}

const idOf = (id: string) => boundDetail(id.toLowerCase(), 2000);

/** A vault's certificate or secret id as the estate keys it: lower-case, no version. */
export function vaultItemId(
  vaultId: string | undefined,
  secretName: string | undefined,
): string | undefined {
  if (!secretName || !vaultId) return undefined;
  const name = vaultId.match(/\/vaults\/([^/]+)$/i)?.[1];
  if (!name) return undefined;
  return shown(`https://${name.toLowerCase()}.vault.azure.net/secrets/${secretName.toLowerCase()}`);
}

/** An App Service certificate, with the site and slot bindings that use its thumbprint. */
export function appServiceCertificate(
  row: z.infer<typeof certificateRow>,
  bindings: ReadonlyMap<string, EstateBinding[]>,
): EstateCertificate {
  const problems: string[] = [];
  const thumbprint = thumbprintOf(row.thumbprint);
  if (row.thumbprint && !thumbprint) problems.push("its thumbprint is not 40 hexadecimal digits");
  const expiresAt = dateOf(row.expirationDate);
  if (row.expirationDate && !expiresAt) problems.push("its expiry is not a date");
  const names = hostNamesOf([
    ...(row.hostNames ?? []),
    ...(row.subjectName ? [row.subjectName] : []),
  ]);
  const boundTo = (thumbprint ? (bindings.get(thumbprint) ?? []) : []).slice(0, MAX_BINDINGS);
  return {
    id: idOf(row.id),
    kind: "app-service-certificate",
    name: shown(row.name) ?? "",
    subscriptionId: row.subscriptionId.toLowerCase(),
    resourceGroup: shown(row.resourceGroup),
    thumbprint,
    notBefore: dateOf(row.issueDate),
    expiresAt,
    issuer: shown(row.issuer),
    subject: shown(row.subjectName),
    hostNames: names.hostNames,
    moreHostNames: names.more,
    keyVaultId: vaultItemId(row.keyVaultId, row.keyVaultSecretName),
    boundTo,
    problems,
  };
}

/** Site and slot bindings by the thumbprint they serve. */
export function bindingsByThumbprint(
  rows: readonly z.infer<typeof bindingRow>[],
): Map<string, EstateBinding[]> {
  const byThumbprint = new Map<string, EstateBinding[]>();
  for (const row of rows) {
    const thumbprint = thumbprintOf(row.thumbprint);
    if (!thumbprint) continue;
    const list = byThumbprint.get(thumbprint) ?? [];
    list.push({
      kind: /slots$/i.test(row.type) ? "slot" : "site",
      resourceId: idOf(row.id),
      hostName: shown(row.hostName?.toLowerCase()),
    });
    byThumbprint.set(thumbprint, list);
  }
  return byThumbprint;
}

export function vaultOf(row: z.infer<typeof vaultRow>): VaultRef {
  return {
    name: shown(row.name.toLowerCase()) ?? "",
    id: idOf(row.id),
    subscriptionId: row.subscriptionId.toLowerCase(),
    resourceGroup: shown(row.resourceGroup),
  };
}
