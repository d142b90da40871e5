import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Certificates and PKCS#7 bags made by openssl itself, as an Application Gateway's
 * `publicCertData` holds them, with what openssl says of each (thumbprint, validity), so a test
 * compares certsched's reading with openssl's and not with its own.
 */

/** A certificate made here, with openssl's own reading of it. */
export interface Made {
  readonly name: string;
  /** Its PEM file. */
  readonly path: string;
  readonly keyPath: string;
  /** `openssl x509 -fingerprint -sha1`, colons removed. */
  readonly thumbprint: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
}

export interface MakeOptions {
  /** `-subj`, e.g. `/CN=www.contoso.test/O=Contoso`. */
  readonly subject: string;
  /** Extension lines (`subjectAltName=DNS:a.test`), as in an openssl extensions section. */
  readonly extensions?: readonly string[];
  /** `rsa:2048` or an EC curve (prime256v1, the default: fast on two cores). */
  readonly key?: string;
  readonly days?: number;
}

/** A temporary directory in which openssl makes certificates; `close()` removes it. */
export interface OpensslBags {
  selfSigned(name: string, options: MakeOptions): Made;
  issued(name: string, issuer: Made, options: MakeOptions): Made;
  /** `openssl crl2pkcs7 -nocrl` of the certificates, in this order: base64 of the DER. */
  pkcs7(certificates: readonly Made[]): string;
  /** One certificate's DER, base64. */
  der(certificate: Made): string;
  close(): void;
}

export function opensslBags(): OpensslBags {
  const dir = mkdtempSync(join(tmpdir(), "certsched-pfx-"));
  const openssl = (...args: string[]) =>
    execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  const file = (name: string) => join(dir, name);

  const keyOf = (name: string, key = "prime256v1") => {
    const keyPath = file(`${name}.key`);
    if (key.startsWith("rsa:")) {
      openssl(
        "genpkey",
        "-algorithm",
        "RSA",
        "-pkeyopt",
        `rsa_keygen_bits:${key.slice(4)}`,
        "-out",
        keyPath,
      );
    } else {
      openssl(
        "genpkey",
        "-algorithm",
        "EC",
        "-pkeyopt",
        `ec_paramgen_curve:${key}`,
        "-out",
        keyPath,
      );
    }
    return keyPath;
  };
  const extensionsOf = (name: string, options: MakeOptions) => {
    const path = file(`${name}.ext`);
    writeFileSync(path, `${(options.extensions ?? []).join("\n")}\n`);
    return path;
  };
  const made = (name: string, path: string, keyPath: string): Made => {
    const said = (flag: string) =>
      openssl("x509", "-in", path, "-noout", flag, "-dateopt", "iso_8601")
        .toString()
        .trim()
        .replace(/^[^=]*=/, "");
    const thumbprint = openssl("x509", "-in", path, "-noout", "-fingerprint", "-sha1")
      .toString()
      .trim()
      .replace(/^[^=]*=/, "")
      .replace(/:/g, "");
    const iso = (text: string) => new Date(text.replace(" ", "T"));
    return {
      name,
      path,
      keyPath,
      thumbprint,
      notBefore: iso(said("-startdate")),
      notAfter: iso(said("-enddate")),
    };
  };

  return {
    selfSigned(name, options) {
      const keyPath = keyOf(name, options.key);
      const path = file(`${name}.pem`);
      openssl(
        ...["req", "-new", "-x509", "-key", keyPath, "-out", path, "-utf8"],
        ...["-days", String(options.days ?? 30), "-subj", options.subject],
        ...["-extensions", "v3", "-config", configOf(name, options)],
      );
      return made(name, path, keyPath);
    },
    issued(name, issuer, options) {
      const keyPath = keyOf(name, options.key);
      const csr = file(`${name}.csr`);
      const path = file(`${name}.pem`);
      openssl("req", "-new", "-key", keyPath, "-out", csr, "-utf8", "-subj", options.subject);
      openssl(
        ...["x509", "-req", "-in", csr, "-CA", issuer.path, "-CAkey", issuer.keyPath],
        ...["-set_serial", String(Date.now()), "-days", String(options.days ?? 30)],
        ...["-extfile", extensionsOf(name, options), "-out", path],
      );
      return made(name, path, keyPath);
    },
    pkcs7(certificates) {
      const chain = file(`bag-${Date.now()}-${Math.random()}.pem`);
      writeFileSync(chain, certificates.map((c) => readFileSync(c.path, "utf8")).join(""));
      return openssl("crl2pkcs7", "-nocrl", "-certfile", chain, "-outform", "DER").toString(
        "base64",
      );
    },
    der(certificate) {
      return openssl("x509", "-in", certificate.path, "-outform", "DER").toString("base64");
    },
    close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };

  /** An openssl config whose `v3` section holds the extensions (req wants one to add several). */
  function configOf(name: string, options: MakeOptions): string {
    const path = file(`${name}.cnf`);
    const lines = ["[req]", "distinguished_name=dn", "[dn]", "[v3]"];
    writeFileSync(path, `${[...lines, ...(options.extensions ?? [])].join("\n")}\n`);
    return path;
  }
}
