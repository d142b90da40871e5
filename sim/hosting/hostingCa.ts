import { generateKeyPair, generateKeyPairSync } from "node:crypto";
import { isIP } from "node:net";
import { promisify } from "node:util";
import forge from "node-forge";
import { DAY_MS } from "../../shared/lib/time.js";

const YEAR_MS = 365 * DAY_MS;

/** A PEM certificate and its PEM (PKCS#8) key, ready for `tls.createSecureContext`. */
export interface IssuedLeaf {
  readonly cert: string;
  readonly key: string;
}

/** The subject of the throwaway CA: `O` is what `certsched verify` shows as the issuer. */
export const HOSTING_CA_NAME = {
  commonName: "certsched simulator throwaway CA",
  organizationName: "certsched simulator",
} as const;

const CA_SUBJECT = [
  { name: "commonName", value: HOSTING_CA_NAME.commonName },
  { name: "organizationName", value: HOSTING_CA_NAME.organizationName },
];

/** The intermediate CA's subject: issued by the throwaway CA, issues leaves on request. */
export const HOSTING_INTERMEDIATE_NAME = {
  commonName: "certsched simulator intermediate CA",
  organizationName: "certsched simulator",
} as const;

const INTERMEDIATE_SUBJECT = [
  { name: "commonName", value: HOSTING_INTERMEDIATE_NAME.commonName },
  { name: "organizationName", value: HOSTING_INTERMEDIATE_NAME.organizationName },
];

/**
 * How a leaf is made (for what a browser checks). Default: issued by the throwaway CA
 * itself and served alone, which is complete (the CA is the trust anchor).
 */
export interface LeafStyle {
  /**
   * `intermediate`: issued by the intermediate CA, served with it (a complete chain);
   * `omit-intermediate`: issued by it, served without it (an incomplete chain).
   */
  readonly chain?: "direct" | "intermediate" | "omit-intermediate";
  /** An RSA key of 1024 bits instead of the shared 2048-bit one. */
  readonly weakKey?: boolean;
  /** Signed with SHA-1 instead of SHA-256. */
  readonly sha1?: boolean;
}

/** A key for `weakKey` leaves, made on first use (1024 bits: quick even on small machines). */
let weakPair: { privateKey: string; publicKey: string } | undefined;
function weakKeyPair() {
  weakPair ??= generateKeyPairSync("rsa", {
    modulusLength: 1024,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  return weakPair;
}

/**
 * The simulator's throwaway certificate authority, made at start with node-forge (a well-kept
 * library, not hand-written DER). Its certificate is the only thing a verifier must trust.
 *
 * One RSA key serves the CA and every leaf: generating RSA keys is slow on small machines, and
 * a shared key changes nothing a chain check looks at (OpenSSL finds an issuer by name, then
 * checks the signature). Nothing here protects anything: it lives as long as the simulator.
 */
export class HostingCa {
  /** PEM of the CA certificate: what tests pass as `ca` and the sandbox trusts. */
  readonly certPem: string;
  /** PEM of the intermediate CA (signed by the CA, same dates), for `LeafStyle.chain`. */
  readonly intermediatePem: string;
  readonly #keyPem: string;
  readonly #privateKey: forge.pki.rsa.PrivateKey;
  readonly #publicKey: forge.pki.rsa.PublicKey;
  #serial = 1;

  private constructor(keyPem: string, publicPem: string, validity: Validity) {
    this.#keyPem = keyPem;
    this.#privateKey = forge.pki.privateKeyFromPem(keyPem);
    this.#publicKey = forge.pki.publicKeyFromPem(publicPem);
    const caExtensions = [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    ];
    this.certPem = this.#sign(CA_SUBJECT, validity, caExtensions);
    this.intermediatePem = this.#sign(INTERMEDIATE_SUBJECT, validity, caExtensions, {
      issuer: CA_SUBJECT,
    });
  }

  /**
   * A CA valid a year before and ten years after both the sim clock and the real clock: OpenSSL
   * checks the chain by the real clock, the simulator's certificates follow the sim clock.
   */
  static async create(simNow: Date): Promise<HostingCa> {
    const pair = await promisify(generateKeyPair)("rsa", {
      modulusLength: 2048,
      publicKeyEncoding: { type: "spki", format: "pem" },
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
    });
    const times = [simNow.getTime(), Date.now()];
    return new HostingCa(pair.privateKey, pair.publicKey, {
      notBefore: new Date(Math.min(...times) - YEAR_MS),
      notAfter: new Date(Math.max(...times) + 10 * YEAR_MS),
    });
  }

  /**
   * A server certificate for exactly `names` (subjectAltName DNS entries, IP entries for
   * addresses) and these dates.
   */
  issue(names: readonly string[], validity: Validity, style: LeafStyle = {}): IssuedLeaf {
    const chain = style.chain ?? "direct";
    const weak = style.weakKey === true ? weakKeyPair() : undefined;
    const signing = {
      issuer: chain === "direct" ? CA_SUBJECT : INTERMEDIATE_SUBJECT,
      sha1: style.sha1 === true,
      ...(weak === undefined ? {} : { publicKey: forge.pki.publicKeyFromPem(weak.publicKey) }),
    };
    const leaf = this.#sign(
      [{ name: "commonName", value: names[0] ?? "leaf" }],
      validity,
      [
        { name: "basicConstraints", cA: false },
        { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
        { name: "extKeyUsage", serverAuth: true },
        // GeneralName type 2: dNSName; type 7: iPAddress (the sandbox's ARM on 127.0.0.1).
        {
          name: "subjectAltName",
          altNames: names.map((value) =>
            isIP(value) ? { type: 7, ip: value } : { type: 2, value },
          ),
        },
        // The CA's key identifier (the leaf has the CA's key): among several simulators' CAs of
        // the same name (the sandbox's accounts, in one NODE_EXTRA_CA_CERTS), OpenSSL finds this one.
        // Named, not `true`: forge would take a weak leaf's own key for the CA's.
        {
          name: "authorityKeyIdentifier",
          keyIdentifier: forge.pki
            .getPublicKeyFingerprint(this.#publicKey, { type: "RSAPublicKey" })
            .getBytes(),
        },
      ],
      signing,
    );
    const cert = chain === "intermediate" ? `${leaf}${this.intermediatePem}` : leaf;
    return { cert, key: weak?.privateKey ?? this.#keyPem };
  }

  #sign(
    subject: forge.pki.CertificateField[],
    validity: Validity,
    extensions: object[],
    signing: {
      readonly issuer?: forge.pki.CertificateField[];
      readonly publicKey?: forge.pki.PublicKey;
      readonly sha1?: boolean;
    } = {},
  ): string {
    const cert = forge.pki.createCertificate();
    cert.publicKey = signing.publicKey ?? this.#publicKey;
    // A leading 1 keeps the DER integer positive and every serial distinct.
    cert.serialNumber = `1${(this.#serial++).toString(16).padStart(7, "0")}`;
    cert.validity.notBefore = validity.notBefore;
    cert.validity.notAfter = validity.notAfter;
    cert.setSubject(subject);
    cert.setIssuer(signing.issuer ?? CA_SUBJECT);
    cert.setExtensions([...extensions, { name: "subjectKeyIdentifier" }]);
    cert.sign(this.#privateKey, signing.sha1 ? forge.md.sha1.create() : forge.md.sha256.create());
    return forge.pki.certificateToPem(cert);
  }
}

/** X.509 validity; both ends keep whole seconds. */
export interface Validity {
  readonly notBefore: Date;
  readonly notAfter: Date;
}
