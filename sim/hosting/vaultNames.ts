import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import { DAY_MS } from "../../shared/lib/time.js";
import { KEY_VAULT_TARGET, type SimCertificate } from "../certificate.js";
import type { VaultRequest } from "./hosting.js";
import type { HostingCa, IssuedLeaf } from "./hostingCa.js";

/** Names in the simulator's vault: hosts, keys, and which certificates live there. */

/** The public cloud's vault host suffix: `{vault}.vault.azure.net`. */
export const VAULT_HOST_SUFFIX = "vault.azure.net";

/** A name that may stand before `.vault.azure.net` (and in a connect-to entry). */
export const VAULT_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

export type VaultCertificate = SimCertificate & { keyVaultName: string };

export function inVault(cert: SimCertificate): cert is VaultCertificate {
  return cert.target === KEY_VAULT_TARGET && typeof cert.keyVaultName === "string";
}

/** Vault and certificate names are case-insensitive in Key Vault. */
export const keyOf = (keyVaultName: string, certificateName: string) =>
  `${keyVaultName.toLowerCase()}/${certificateName.toLowerCase()}`;

export const nameInVault = (c: {
  keyVaultCertificateName: string | null;
  certificateName: string;
}) => c.keyVaultCertificateName || c.certificateName;

export const noSuchCertificate = (vault: string, name: string) =>
  new RangeError(`the simulator has no Key Vault certificate ${vault}/${name}`);

/** The vault a request is for: the first label of its Host header, else of its SNI name. */
export function vaultOf(req: IncomingMessage): string | undefined {
  const suffix = `.${VAULT_HOST_SUFFIX}`;
  const candidates = [
    (req.headers.host ?? "").replace(/:\d+$/, ""),
    (req.socket as TLSSocket).servername || "",
  ];
  for (const candidate of candidates) {
    const host = candidate.toLowerCase().replace(/\.$/, "");
    if (host.endsWith(suffix)) {
      const label = host.slice(0, -suffix.length);
      if (VAULT_LABEL.test(label)) return label;
    }
  }
  return undefined;
}

/** What the vault records of a request (never its token). */
export function requestOf(req: IncomingMessage): VaultRequest {
  return {
    method: req.method ?? "GET",
    path: (req.url ?? "/").split("?")[0] ?? "/",
    host: req.headers.host ?? "",
    servername: (req.socket as TLSSocket).servername || undefined,
    authorized: /^Bearer\s+\S/i.test(req.headers.authorization ?? ""),
  };
}

/** The vault's own certificate, for `*.vault.azure.net`. */
export function vaultServerCertificate(ca: HostingCa): IssuedLeaf {
  // The vault's own name, valid by the real clock (OpenSSL checks it so), whatever the sim clock.
  const now = Date.now();
  return ca.issue([`*.${VAULT_HOST_SUFFIX}`, VAULT_HOST_SUFFIX], {
    notBefore: new Date(Math.floor(now / 1000) * 1000 - DAY_MS),
    notAfter: new Date(Math.floor(now / 1000) * 1000 + 365 * DAY_MS),
  });
}
