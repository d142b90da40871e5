import { generateKeyPair, type X509Certificate } from "node:crypto";
import tls from "node:tls";
import { promisify } from "node:util";
import forge from "node-forge";
import { DAY_MS } from "../../shared/lib/time.js";
import type { Hosting } from "../hosting/hosting.js";
import {
  asPrecertificate,
  type IssuanceSeed,
  issuanceFromCertificate,
  pubkeySha256,
} from "./issuances.js";

/**
 * The sandbox's Certificate Transparency story: Cert Spotter has logged two issuances under
 * contoso.com. One is the precertificate of what the sandbox's hosting endpoint serves for
 * www.contoso.com after the sweep renewed it (expected: certsched read that certificate); the
 * other is for pay.contoso.com, a name no certificate of the sandbox has, by a certificate
 * authority nobody there uses (unexpected).
 */

/** The sandbox's App Service certificate whose renewal Cert Spotter has logged (it lands). */
export const SANDBOX_CT_RENEWED = { certificateName: "www-contoso-com", name: "www.contoso.com" };
/** The name of the issuance nobody asked for, and its issuer. */
export const SANDBOX_CT_STRAY = { name: "pay.contoso.com", issuer: "Unknown CA" } as const;

export interface SandboxIssuancesInput {
  /**
   * The certificate served for {@link SANDBOX_CT_RENEWED}'s name after the sweep (PEM, DER or
   * X509Certificate; the leaf): what verification read, e.g. from {@link readServedCertificate}.
   */
  readonly served: string | X509Certificate | Buffer;
  /** The sim clock: the stray issuance was issued three days before it, for 90 days. */
  readonly now: Date;
  /** The stray issuance's names (default [{@link SANDBOX_CT_STRAY}.name]). */
  readonly strayNames?: readonly string[] | undefined;
}

export interface SandboxIssuances {
  /** The served certificate's precertificate entry: same tbs_sha256 and pubkey_sha256. */
  readonly renewed: IssuanceSeed;
  /** The stray certificate, by "Unknown CA", its own key. */
  readonly stray: IssuanceSeed;
  /** Both, in the order Cert Spotter discovered them: pass to `add(...)`. */
  readonly all: readonly IssuanceSeed[];
}

/**
 * The leaf the hosting endpoint serves for `name` (SNI), read over TLS trusting its CA: the same
 * bytes a TLS probe of that name reads, as long as no renewal lands in between.
 */
export function readServedCertificate(hosting: Hosting, name: string): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host: hosting.host,
      port: hosting.port,
      servername: name,
      ca: hosting.caPem,
    });
    socket.once("secureConnect", () => {
      const cert = socket.getPeerX509Certificate();
      socket.destroy();
      if (cert === undefined) reject(new Error(`no certificate served for ${name}`));
      else resolve(cert);
    });
    socket.once("error", reject);
  });
}

/** A certificate for `names` from a made-up CA, with an SCT list as a logged certificate has. */
async function strayCertificate(names: readonly string[], now: Date): Promise<string> {
  const pair = await promisify(generateKeyPair)("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(pair.publicKey);
  cert.serialNumber = "0a5f1c93e2";
  cert.validity.notBefore = new Date(Math.floor(now.getTime() / 1000) * 1000 - 3 * DAY_MS);
  cert.validity.notAfter = new Date(cert.validity.notBefore.getTime() + 90 * DAY_MS);
  cert.setSubject([{ name: "commonName", value: names[0] ?? SANDBOX_CT_STRAY.name }]);
  cert.setIssuer([
    { name: "countryName", value: "US" },
    { name: "organizationName", value: SANDBOX_CT_STRAY.issuer },
    { name: "commonName", value: `${SANDBOX_CT_STRAY.issuer} R3` },
  ]);
  cert.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "extKeyUsage", serverAuth: true },
    { name: "subjectAltName", altNames: names.map((value) => ({ type: 2, value })) },
    // An embedded SCT list (1.3.6.1.4.1.11129.2.4.2), its content made up: tbs_sha256 leaves it out.
    {
      id: "1.3.6.1.4.1.11129.2.4.2",
      value: forge.asn1
        .toDer(
          forge.asn1.create(
            forge.asn1.Class.UNIVERSAL,
            forge.asn1.Type.OCTETSTRING,
            false,
            "\u0000\u0000",
          ),
        )
        .getBytes(),
    },
  ]);
  // Self-signed under the CA's name: no one checks a CT issuance's signature.
  cert.sign(forge.pki.privateKeyFromPem(pair.privateKey), forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

/** The sandbox's two issuances (see the file's comment). */
export async function sandboxIssuances(input: SandboxIssuancesInput): Promise<SandboxIssuances> {
  const renewed = asPrecertificate(issuanceFromCertificate(input.served));
  const names = input.strayNames ?? [SANDBOX_CT_STRAY.name];
  const strayPem = await strayCertificate(names, input.now);
  const stray = issuanceFromCertificate(strayPem, {
    issuer: {
      friendly_name: SANDBOX_CT_STRAY.issuer,
      website: "https://unknown-ca.invalid/",
      caa_domains: ["unknown-ca.invalid"],
      operator: { name: SANDBOX_CT_STRAY.issuer, website: "https://unknown-ca.invalid/" },
      // Self-signed: the issuer's key is the certificate's.
      pubkey_sha256: pubkeySha256(strayPem),
      name: `C=US, O=${SANDBOX_CT_STRAY.issuer}, CN=${SANDBOX_CT_STRAY.issuer} R3`,
    },
    problemReporting: "Send email to revoke@unknown-ca.invalid",
  });
  return { renewed, stray, all: [renewed, stray] };
}
