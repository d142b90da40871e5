import { createHash, X509Certificate } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { keyOf, nameInVault, type VaultCertificate } from "./vaultNames.js";

/**
 * The simulator's vault lists its certificates as Key Vault does: `GET /certificates` paged by
 * `maxresults` with `nextLink`, and `GET /certificates/{name}/policy` with the issuer and the
 * lifetime actions (AutoRenew or EmailContacts). It holds the service's certificates and, for
 * estate discovery, certificates the service does not know (`addForeign`); a vault can be
 * forbidden (403 on every request to it, as Key Vault answers a caller without a role).
 */

/** A certificate the service does not keep, in a vault of the simulator. */
export interface ForeignCertificate {
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** Its policy renews it itself (lifetime action AutoRenew); else EmailContacts. */
  readonly autoRenew: boolean;
  /** The policy's issuer name (default `Self`, or `Unknown` for an imported one). */
  readonly issuer?: string | undefined;
  readonly enabled?: boolean | undefined;
  readonly tags?: Readonly<Record<string, string>> | undefined;
}

/** The seed and fault API of the vault's list: `vault.estate`. */
export interface VaultEstate {
  addForeign(keyVaultName: string, certificateName: string, certificate: ForeignCertificate): void;
  /** Every request to this vault gets 403 Forbidden from now on (false: no longer). */
  forbid(keyVaultName: string, forbidden?: boolean): void;
  /** Certificates per page of the list (default 25, as Key Vault's largest page). */
  setPageSize(size: number): void;
  /** The vault names foreign certificates live in, lower-case. */
  vaults(): string[];
  clear(): void;
}

/** One line of the list. */
export interface ListEntry {
  readonly name: string;
  readonly x5t: string;
  readonly nbf: number;
  readonly exp: number;
  readonly created: number;
  readonly enabled: boolean;
  readonly tags: Readonly<Record<string, string>>;
  readonly autoRenew: boolean;
  readonly issuer: string;
}

const seconds = (d: Date | string) => Math.floor(new Date(d).getTime() / 1000);

/** The service's certificates in `vault`, each as its current version says. */
export function keptEntries(
  certificates: readonly VaultCertificate[],
  vault: string,
  served: (
    vault: string,
    name: string,
  ) => readonly { readonly der: Buffer; readonly created: number }[],
): ListEntry[] {
  const entries: ListEntry[] = [];
  for (const cert of certificates) {
    if (cert.keyVaultName.toLowerCase() !== vault) continue;
    const name = nameInVault(cert);
    const current = served(vault, name).at(-1);
    if (current === undefined) continue;
    const x509 = new X509Certificate(current.der);
    entries.push({
      name,
      x5t: createHash("sha1").update(current.der).digest("base64url"),
      nbf: seconds(x509.validFrom),
      exp: seconds(x509.validTo),
      created: current.created,
      enabled: true,
      tags: {},
      autoRenew: false,
      issuer: "Unknown",
    });
  }
  return entries;
}

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

export const vaultForbidden = (vault: string): Answer => ({
  status: 403,
  body: {
    error: {
      code: "Forbidden",
      message: `Caller is not authorized to perform action on resource.\r\nIf role assignments, deny assignments or role definitions were changed recently, please observe propagation time.\r\nCaller: appid=00000000-0000-0000-0000-00000000c11e;oid=00000000-0000-0000-0000-00000000c11e\r\nAction: 'Microsoft.KeyVault/vaults/certificates/read'\r\nResource: '${vault}'\r\nAssignment: (not found)\r\nVault: ${vault};location=westeurope\r\n`,
      innererror: { code: "ForbiddenByRbac" },
    },
  },
});

export class VaultListState implements VaultEstate {
  readonly #foreign = new Map<string, { vault: string; name: string; cert: ForeignCertificate }>();
  readonly #forbidden = new Set<string>();
  #pageSize = 25;

  addForeign(keyVaultName: string, certificateName: string, cert: ForeignCertificate) {
    const vault = keyVaultName.toLowerCase();
    this.#foreign.set(keyOf(vault, certificateName), { vault, name: certificateName, cert });
  }
  forbid(keyVaultName: string, forbidden = true) {
    if (forbidden) this.#forbidden.add(keyVaultName.toLowerCase());
    else this.#forbidden.delete(keyVaultName.toLowerCase());
  }
  setPageSize(size: number) {
    this.#pageSize = Math.max(1, Math.floor(size));
  }
  vaults() {
    return [...new Set([...this.#foreign.values()].map((f) => f.vault))];
  }
  clear() {
    this.#foreign.clear();
    this.#forbidden.clear();
    this.#pageSize = 25;
  }

  #foreignIn(vault: string): ListEntry[] {
    return [...this.#foreign.values()]
      .filter((f) => f.vault === vault)
      .map(({ name, cert }) => ({
        name,
        x5t: createHash("sha1").update(`${vault}/${name}`).digest("base64url"),
        nbf: seconds(cert.notBefore),
        exp: seconds(cert.notAfter),
        created: seconds(cert.notBefore),
        enabled: cert.enabled ?? true,
        tags: { ...cert.tags },
        autoRenew: cert.autoRenew,
        issuer: cert.issuer ?? "Self",
      }));
  }

  /**
   * The answer to a request to `vault` when it is forbidden, a list or a policy read; undefined:
   * the vault's certificate reads answer it.
   */
  answer(
    req: IncomingMessage,
    vault: string | undefined,
    kept: () => ListEntry[],
  ): Answer | undefined {
    if (vault === undefined) return undefined;
    if (this.#forbidden.has(vault)) return vaultForbidden(vault);
    const url = new URL(req.url ?? "/", `https://${vault}.vault.azure.net`);
    const parts = url.pathname.split("/").filter((p) => p !== "");
    if (req.method !== "GET" || parts[0] !== "certificates") return undefined;
    const all = () => [...kept(), ...this.#foreignIn(vault)];
    if (parts.length === 1) return { status: 200, body: this.#page(all(), url) };
    if (parts.length !== 3 || parts[2] !== "policy") return undefined;
    const name = decodeURIComponent(parts[1] ?? "").toLowerCase();
    const found = all().find((e) => e.name.toLowerCase() === name);
    if (found === undefined) return undefined;
    return { status: 200, body: policyBody(url.origin, found) };
  }

  #page(entries: ListEntry[], url: URL) {
    const wanted = Number(url.searchParams.get("maxresults"));
    const size = Math.min(this.#pageSize, wanted > 0 ? wanted : this.#pageSize);
    const start = Math.max(0, Number(url.searchParams.get("$skiptoken")) || 0);
    const end = start + size;
    const next = new URLSearchParams({
      "api-version": url.searchParams.get("api-version") ?? "7.5",
      $skiptoken: String(end),
      maxresults: String(size),
    });
    return {
      value: entries.slice(start, end).map((e) => ({
        id: `${url.origin}/certificates/${encodeURIComponent(e.name)}`,
        x5t: e.x5t,
        attributes: {
          enabled: e.enabled,
          nbf: e.nbf,
          exp: e.exp,
          created: e.created,
          updated: e.created,
          recoveryLevel: "Recoverable+Purgeable",
          recoverableDays: 90,
        },
        tags: e.tags,
        subject: "",
      })),
      nextLink: end < entries.length ? `${url.origin}/certificates?${next.toString()}` : null,
    };
  }
}

function policyBody(origin: string, e: ListEntry) {
  const action = e.autoRenew
    ? { trigger: { days_before_expiry: 30 }, action: { action_type: "AutoRenew" } }
    : { trigger: { lifetime_percentage: 80 }, action: { action_type: "EmailContacts" } };
  return {
    id: `${origin}/certificates/${encodeURIComponent(e.name)}/policy`,
    key_props: { exportable: true, kty: "RSA", key_size: 2048, reuse_key: false },
    secret_props: { contentType: "application/x-pkcs12" },
    x509_props: { subject: `CN=${e.name}`, validity_months: 12 },
    lifetime_actions: [action],
    issuer: { name: e.issuer },
    attributes: { enabled: e.enabled, created: e.created, updated: e.created },
  };
}
