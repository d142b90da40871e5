import { generateKeyPairSync } from "node:crypto";
import forge from "node-forge";

/**
 * A throwaway certificate authority and leaf certificates for tests that cross real TLS sockets,
 * built with node-forge (a well-kept library, not hand-written DER) so every field is exact:
 * validity to the millisecond (X.509 keeps seconds), SAN names, issuer, serial.
 *
 * One RSA key serves every certificate of a test process: generating RSA keys is slow on two
 * cores, and a shared key changes nothing that chain verification looks at (OpenSSL finds an
 * issuer by subject name, then checks the signature; every CA here has its own name).
 */

/** A PEM key and certificate, ready for `tls.createServer`. */
export interface Issued {
  /** PEM certificate. */
  readonly cert: string;
  /** PEM private key (PKCS#8). */
  readonly key: string;
}

/** A certificate authority that can sign leaves. */
export interface TestCa extends Issued {
  readonly commonName: string;
}

export interface LeafOptions {
  /** subjectAltName entries: DNS names (wildcards allowed), or IP addresses. */
  readonly names: readonly string[];
  /** Subject CN; the first name when not given. */
  readonly commonName?: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** Hex serial number (positive); a fixed default otherwise. */
  readonly serial?: string;
  /** extendedKeyUsage: serverAuth (the default) or clientAuth only, which no browser serves. */
  readonly extKeyUsage?: "serverAuth" | "clientAuth";
}

let pair: { privateKey: string; publicKey: string } | undefined;

function keyPair(): { privateKey: string; publicKey: string } {
  pair ??= generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  return pair;
}

const IP = /^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f:]*:[0-9a-f:.]*)$/i;

function altName(name: string): { type: number; value?: string; ip?: string } {
  // GeneralName tags: 2 = dNSName, 7 = iPAddress.
  return IP.test(name) ? { type: 7, ip: name } : { type: 2, value: name };
}

function sign(
  subject: string,
  issuer: string,
  validity: { notBefore: Date; notAfter: Date },
  serial: string,
  extensions: object[],
): string {
  const { privateKey, publicKey } = keyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey);
  cert.serialNumber = serial;
  cert.validity.notBefore = validity.notBefore;
  cert.validity.notAfter = validity.notAfter;
  cert.setSubject([{ name: "commonName", value: subject }]);
  cert.setIssuer([{ name: "commonName", value: issuer }]);
  cert.setExtensions([...extensions, { name: "subjectKeyIdentifier" }]);
  cert.sign(forge.pki.privateKeyFromPem(privateKey), forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

const YEAR_MS = 365 * 86_400_000;

/** A self-signed CA valid from a year ago to ten years ahead; `commonName` tells CAs apart. */
export function makeCa(commonName: string, now: Date = new Date()): TestCa {
  const cert = sign(
    commonName,
    commonName,
    {
      notBefore: new Date(now.getTime() - YEAR_MS),
      notAfter: new Date(now.getTime() + 10 * YEAR_MS),
    },
    "01",
    [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    ],
  );
  return { cert, key: keyPair().privateKey, commonName };
}

/** A server certificate signed by `ca`, with exactly the names and validity given. */
export function makeLeaf(ca: TestCa, options: LeafOptions): Issued {
  const first = options.names[0];
  const cert = sign(
    options.commonName ?? first ?? "leaf",
    ca.commonName,
    options,
    options.serial ?? "0a1b2c3d",
    [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", [options.extKeyUsage ?? "serverAuth"]: true },
      { name: "subjectAltName", altNames: options.names.map(altName) },
    ],
  );
  return { cert, key: keyPair().privateKey };
}

export interface IntermediateOptions {
  /** basicConstraints cA; default true. False: a certificate that may not sign others. */
  readonly ca?: boolean;
  /** keyUsage keyCertSign; default true. */
  readonly keyCertSign?: boolean;
  /** basicConstraints pathLenConstraint: how many CA certificates may follow it; default none. */
  readonly pathLen?: number;
}

/**
 * An intermediate CA signed by `parent`, valid as the parent is. `ca: false` or
 * `keyCertSign: false` make one no browser accepts as an issuer (RFC 5280 4.2.1.3, 4.2.1.9).
 */
export function makeIntermediate(
  parent: TestCa,
  commonName: string,
  options: IntermediateOptions = {},
  now: Date = new Date(),
): TestCa {
  const cert = sign(
    commonName,
    parent.commonName,
    {
      notBefore: new Date(now.getTime() - YEAR_MS),
      notAfter: new Date(now.getTime() + 5 * YEAR_MS),
    },
    "02",
    [
      {
        name: "basicConstraints",
        cA: options.ca ?? true,
        critical: true,
        ...(options.pathLen === undefined ? {} : { pathLenConstraint: options.pathLen }),
      },
      {
        name: "keyUsage",
        keyCertSign: options.keyCertSign ?? true,
        digitalSignature: true,
        cRLSign: true,
        critical: true,
      },
    ],
  );
  return { cert, key: keyPair().privateKey, commonName };
}
