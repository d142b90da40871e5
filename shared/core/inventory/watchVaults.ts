import { z } from "zod";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { endpointKey, type NamedEndpoint, parseEndpoint } from "../verification/endpoint.js";
import { isKeyVaultName } from "../verification/keyVaultName.js";
import { entries } from "./watch.js";

/**
 * CERTSCHED_WATCH's mapped form: `<vault>/<certificate>=<host[:port]>[;...]`
 * names the domains that serve a Key Vault certificate, e.g.
 * `kv-prod/www-contoso=www.contoso.com;api.contoso.com:8443`. Each domain is watched as a plain
 * entry is (a `watch:host` row) and also compared with the vault's current version
 * (core/verification/syncCheck.ts). Plain entries (`host[:port]`) are as before.
 */

/** One vault certificate and the domains that serve it. */
export interface WatchVault {
  readonly keyVaultName: string;
  /** The certificate's name in the vault. */
  readonly keyVaultCertificateName: string;
  readonly endpoints: readonly NamedEndpoint[];
}

/** CERTSCHED_WATCH parsed: every endpoint to watch, and which vault certificate serves which. */
export interface WatchSetting {
  /** Plain entries and the mapped entries' domains, once each, in the order written. */
  readonly endpoints: readonly NamedEndpoint[];
  readonly vaults: readonly WatchVault[];
}

/** Key Vault's rule for a certificate name: 1-127 letters, digits and hyphens. */
const CERTIFICATE_NAME = /^[0-9a-z-]{1,127}$/i;

const MAPPED_RULE = "must be VAULT/CERTIFICATE=HOST[:PORT][;HOST[:PORT]...]";

const shown = (text: string) => `"${escapeControl(text.slice(0, 120))}"`;

/** One mapped entry, or the rule it breaks (naming the entry). */
export function parseWatchVault(entry: string): WatchVault | string {
  const at = entry.indexOf("=");
  const left = entry.slice(0, at).trim();
  const right = entry.slice(at + 1);
  const slash = left.indexOf("/");
  if (slash === -1) {
    return `${shown(entry)} ${MAPPED_RULE}: the vault and the certificate, separated by "/", before "="`;
  }
  const keyVaultName = left.slice(0, slash).trim();
  const keyVaultCertificateName = left.slice(slash + 1).trim();
  if (!isKeyVaultName(keyVaultName)) {
    return `${shown(entry)} ${MAPPED_RULE}: ${shown(keyVaultName)} is not a Key Vault name (3-24 letters, digits and single hyphens, starting with a letter)`;
  }
  if (!CERTIFICATE_NAME.test(keyVaultCertificateName)) {
    return `${shown(entry)} ${MAPPED_RULE}: ${shown(keyVaultCertificateName)} is not a Key Vault certificate name (1-127 letters, digits and hyphens)`;
  }
  const hosts = right
    .split(";")
    .map((h) => h.trim())
    .filter((h) => h !== "");
  if (hosts.length === 0) return `${shown(entry)} ${MAPPED_RULE}: name at least one host`;
  const endpoints = new Map<string, NamedEndpoint>();
  for (const host of hosts) {
    const parsed = parseEndpoint(host);
    if (typeof parsed === "string") return `${shown(entry)}: host ${parsed}`;
    if (!endpoints.has(endpointKey(parsed))) endpoints.set(endpointKey(parsed), parsed);
  }
  return { keyVaultName, keyVaultCertificateName, endpoints: [...endpoints.values()] };
}

/** CERTSCHED_WATCH, both forms; every bad entry is named. */
export const watchSetting = z
  .string()
  .default("")
  .transform((text, ctx): WatchSetting => {
    const endpoints = new Map<string, NamedEndpoint>();
    const vaults: WatchVault[] = [];
    const add = (endpoint: NamedEndpoint) => {
      if (!endpoints.has(endpointKey(endpoint))) endpoints.set(endpointKey(endpoint), endpoint);
    };
    for (const entry of entries(text)) {
      const parsed = entry.includes("=") ? parseWatchVault(entry) : parseEndpoint(entry);
      if (typeof parsed === "string") {
        ctx.addIssue({ code: "custom", message: `entry ${parsed}` });
      } else if ("keyVaultName" in parsed) {
        vaults.push(parsed);
        parsed.endpoints.forEach(add);
      } else {
        add(parsed);
      }
    }
    return { endpoints: [...endpoints.values()], vaults };
  });
