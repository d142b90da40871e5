import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A leaf issued by a throwaway CA, with what openssl itself says of it. */
export interface IssuedLeaf {
  readonly pem: string;
  /** `openssl x509 -noout -text` of the leaf. */
  readonly text: string;
  /** openssl's Authority Key Identifier keyid, "AB:CD:…", or undefined when it has none. */
  readonly opensslAki: string | undefined;
  /** openssl's `-serial`, hex as it prints it. */
  readonly opensslSerial: string;
}

export interface LeafOptions {
  readonly key: "rsa" | "ec";
  /** Hex, as `-set_serial 0x…` takes it. */
  readonly serial: string;
  /** Whether the leaf carries an Authority Key Identifier (default true). */
  readonly aki?: boolean;
}

/**
 * A CA and a leaf it signs, made by openssl (so the CertID of a test is computed from openssl's
 * view of the certificate, not from our parser's).
 */
export async function issueLeaf(options: LeafOptions): Promise<IssuedLeaf> {
  const dir = await mkdtemp(join(tmpdir(), "certsched-ari-"));
  const p = (name: string) => join(dir, name);
  const keyArgs =
    options.key === "rsa"
      ? ["-newkey", "rsa:2048"]
      : ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"];
  try {
    await run("openssl", [
      "req",
      "-x509",
      ...keyArgs,
      "-nodes",
      "-days",
      "2",
      "-subj",
      "/O=Test ARI CA/CN=Test ARI CA",
      "-keyout",
      p("ca.key"),
      "-out",
      p("ca.pem"),
    ]);
    await run("openssl", [
      "req",
      "-new",
      ...keyArgs,
      "-nodes",
      "-subj",
      "/CN=ari.test",
      "-keyout",
      p("leaf.key"),
      "-out",
      p("leaf.csr"),
    ]);
    const ext =
      options.aki === false
        ? "subjectAltName=DNS:ari.test\nauthorityKeyIdentifier=none\nsubjectKeyIdentifier=none\n"
        : "subjectAltName=DNS:ari.test\nauthorityKeyIdentifier=keyid:always\n";
    await writeFile(p("leaf.ext"), ext);
    await run("openssl", [
      "x509",
      "-req",
      "-in",
      p("leaf.csr"),
      "-CA",
      p("ca.pem"),
      "-CAkey",
      p("ca.key"),
      "-set_serial",
      `0x${options.serial}`,
      "-days",
      "1",
      "-extfile",
      p("leaf.ext"),
      "-out",
      p("leaf.pem"),
    ]);
    const pem = await readFile(p("leaf.pem"), "utf8");
    const { stdout } = await run("openssl", [
      "x509",
      "-in",
      p("leaf.pem"),
      "-noout",
      "-ext",
      "authorityKeyIdentifier",
      "-serial",
    ]);
    const { stdout: text } = await run("openssl", [
      "x509",
      "-in",
      p("leaf.pem"),
      "-noout",
      "-text",
    ]);
    const aki = /Authority Key Identifier:\s*\n\s*(?:keyid:)?([0-9A-F:]+)/i.exec(stdout)?.[1];
    const serial = /serial=([0-9A-F]+)/i.exec(stdout)?.[1];
    if (serial === undefined) throw new Error(`openssl printed no serial: ${stdout}`);
    return { pem, text, opensslAki: aki, opensslSerial: serial };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The CertID computed from openssl's output by RFC 9773's words alone: the serial's DER value
 * bytes carry a leading 00 when the first byte has its high bit set (a positive INTEGER).
 */
export function opensslCertId(leaf: IssuedLeaf): string {
  if (leaf.opensslAki === undefined) throw new Error("the leaf has no Authority Key Identifier");
  const akiHex = leaf.opensslAki.replace(/:/g, "");
  let serialHex =
    leaf.opensslSerial.length % 2 === 1 ? `0${leaf.opensslSerial}` : leaf.opensslSerial;
  if (Number.parseInt(serialHex.slice(0, 2), 16) >= 0x80) serialHex = `00${serialHex}`;
  return `${Buffer.from(akiHex, "hex").toString("base64url")}.${Buffer.from(serialHex, "hex").toString("base64url")}`;
}
