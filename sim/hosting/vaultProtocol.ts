import { createHash, X509Certificate } from "node:crypto";
import type { ServerResponse } from "node:http";

/**
 * What Azure Key Vault answers on the wire for the certificates API, as the real
 * CertificateClient needs it (the real client reads it through this): shared by the simulator's vault (sim/hosting/vault.ts)
 * and the tests' fake vault (test/support/fakeKeyVault.ts), so both speak the same protocol.
 */

/** Any tenant works: the SDK only needs a well-formed challenge to ask its credential for a token. */
export const VAULT_CHALLENGE_TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47";

/** The WWW-Authenticate challenge of a 401, naming the resource the token must be for. */
export function vaultChallenge(resource: string): string {
  return `Bearer authorization="https://login.microsoftonline.com/${VAULT_CHALLENGE_TENANT}", resource="${resource}"`;
}

/** The 401 body for a request without a token (`authorized` false) or with a refused one. */
export function unauthorizedBody(authorized: boolean) {
  return {
    error: {
      code: "Unauthorized",
      // What the vault says to a request without a token, and to an expired one.
      message: authorized
        ? "AKV10032: Invalid issuer. Expected one of https://sts.windows.net/..., found https://sts.windows.net/..."
        : "AKV10000: Request is missing a Bearer or PoP token.",
    },
  };
}

/** Key Vault's answer to a certificate name it does not hold (the real service's wording). */
export function certificateNotFound(name: string) {
  return {
    error: {
      code: "CertificateNotFound",
      message: `A certificate with (name/id) ${name} was not found in this key vault. If you recently deleted this certificate you may be able to recover it using the correct recovery command. For help resolving this issue, please see https://go.microsoft.com/fwlink/?linkid=2125182`,
    },
  };
}

/** One version of a certificate as a vault holds it. */
export interface VaultCertificateVersion {
  version: string;
  /** The DER certificate (the vault's `cer`). */
  der: Buffer;
  /** Unix seconds, as Key Vault reports them. */
  created: number;
}

/** The certificate bundle as Key Vault answers it (fields the real service sends). */
export function certificateBundle(vaultUrl: string, name: string, found: VaultCertificateVersion) {
  const x509 = new X509Certificate(found.der);
  const seconds = (date: string) => Math.floor(new Date(date).getTime() / 1000);
  const base = `${vaultUrl}/certificates/${encodeURIComponent(name)}`;
  const attributes = {
    enabled: true,
    nbf: seconds(x509.validFrom),
    exp: seconds(x509.validTo),
    created: found.created,
    updated: found.created,
    recoveryLevel: "Recoverable+Purgeable",
    recoverableDays: 90,
  };
  return {
    id: `${base}/${found.version}`,
    kid: `${vaultUrl}/keys/${encodeURIComponent(name)}/${found.version}`,
    sid: `${vaultUrl}/secrets/${encodeURIComponent(name)}/${found.version}`,
    // x5t is the SHA-1 thumbprint, base64url; cer is the DER certificate, base64.
    x5t: createHash("sha1").update(found.der).digest("base64url"),
    cer: found.der.toString("base64"),
    attributes,
    tags: {},
    policy: {
      id: `${base}/policy`,
      key_props: { exportable: true, kty: "RSA", key_size: 2048, reuse_key: false },
      secret_props: { contentType: "application/x-pkcs12" },
      x509_props: {
        subject: x509.subject.split("\n").join(", "),
        ekus: ["1.3.6.1.5.5.7.3.1"],
        key_usage: ["digitalSignature", "keyEncipherment"],
        validity_months: 12,
        basic_constraints: { ca: false },
      },
      lifetime_actions: [
        { trigger: { lifetime_percentage: 80 }, action: { action_type: "EmailContacts" } },
      ],
      issuer: { name: "Unknown" },
      attributes: { enabled: true, created: found.created, updated: found.created },
    },
  };
}

/**
 * `GET /certificates/<name>/[<version>]` split from a request URL: undefined when the request
 * is not one (the caller answers 405). The name is decoded; an empty version means the current.
 */
export function certificatePath(
  method: string | undefined,
  url: string | undefined,
): { name: string; version: string | undefined } | undefined {
  const [, collection, rawName, rawVersion] = new URL(url ?? "/", "https://vault").pathname.split(
    "/",
  );
  if (method !== "GET" || collection !== "certificates" || !rawName) return undefined;
  let name: string;
  try {
    name = decodeURIComponent(rawName);
  } catch {
    return undefined;
  }
  return { name, version: rawVersion || undefined };
}

/** Answers with a JSON body, as Key Vault does. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(body));
}
