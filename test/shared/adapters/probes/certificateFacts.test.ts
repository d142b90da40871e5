import { execFileSync } from "node:child_process";
import { createHash, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import forge from "node-forge";
import { afterAll, describe, expect, it } from "vitest";
import { ctHashesOfDer } from "../../../../shared/adapters/probes/ctHashes.js";
import { probeTls } from "../../../../shared/adapters/probes/tlsProbe.js";
import type { ProbeResult } from "../../../../shared/core/ports/probes.js";
import { parseConnectTo } from "../../../../shared/core/verification/connectTo.js";
import { type Issued, makeCa, makeIntermediate, makeLeaf } from "../../../support/certificates.js";
import {
  type CtCertificateOptions,
  ctCertificate,
  expectedTbsSha256,
} from "../../../support/ctCertificates.js";
import { type RecordingServer, startTlsServer } from "../../../support/tlsServers.js";

/**
 * What the probe reads beyond dates and names, over real sockets: the key, the signature algorithm,
 * self-issued, and whether the leaf's issuer was sent or is trusted.
 */

const DAY = 86_400_000;
const now = Date.now();
const root = makeCa("certificate facts root");
const intermediate = makeIntermediate(root, "certificate facts intermediate");
const CA = [...tls.rootCertificates, root.cert];
const dates = { notBefore: new Date(now - DAY), notAfter: new Date(now + 60 * DAY) };

const servers: RecordingServer[] = [];
const dir = mkdtempSync(join(tmpdir(), "certsched-facts-"));
afterAll(async () => {
  for (const s of servers) await s.close();
  rmSync(dir, { recursive: true, force: true });
});

async function probe(issued: Issued, ca: readonly string[] = CA) {
  const server = await startTlsServer(issued);
  servers.push(server);
  const result: ProbeResult = await probeTls(
    { host: "www.contoso.test", port: 443 },
    {
      connectTo: parseConnectTo(`www.contoso.test:443:127.0.0.1:${server.port}`),
      timeoutMs: 5_000,
      ca,
    },
  );
  if (!result.reached) throw new Error(`${result.step}: ${result.message}`);
  return result;
}

/** A self-signed EC certificate from openssl itself (node-forge signs RSA only). */
function ecCertificate(curve: string): Issued {
  const key = join(dir, `${curve}.key`);
  const cert = join(dir, `${curve}.pem`);
  execFileSync("openssl", ["ecparam", "-name", curve, "-genkey", "-noout", "-out", key]);
  execFileSync("openssl", [
    ...["req", "-new", "-x509", "-key", key, "-out", cert, "-days", "30", "-sha256"],
    ...["-subj", "/CN=www.contoso.test", "-addext", "subjectAltName=DNS:www.contoso.test"],
  ]);
  return { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") };
}

describe("the probe's facts about the served leaf", () => {
  it("an RSA 2048 leaf signed with SHA-256, sent with its intermediate: issuer found", async () => {
    const leaf = makeLeaf(intermediate, { names: ["www.contoso.test"], ...dates });
    const r = await probe({ ...leaf, cert: leaf.cert + intermediate.cert });
    expect(r.certificate.key).toEqual({ type: "rsa", bits: 2048 });
    expect(r.certificate.signature).toEqual({
      oid: "1.2.840.113549.1.1.11",
      name: "sha256WithRSAEncryption",
    });
    expect(r.certificate.selfIssued).toBe(false);
    expect(r.leafIssuerFound).toBe(true);
    expect(r.chainProblem).toBeUndefined();
  });

  it("the same leaf without its intermediate: issuer not found (Node completes nothing from its store)", async () => {
    const leaf = makeLeaf(intermediate, { names: ["www.contoso.test"], ...dates });
    const r = await probe(leaf);
    expect(r.leafIssuerFound).toBe(false);
    expect(r.chainProblem?.code).toBe("UNABLE_TO_VERIFY_LEAF_SIGNATURE");
  });

  it("a leaf issued by a trusted root, served alone: issuer found (the anchor is the issuer)", async () => {
    const r = await probe(makeLeaf(root, { names: ["www.contoso.test"], ...dates }));
    expect(r.leafIssuerFound).toBe(true);
    expect(r.chainProblem).toBeUndefined();
  });

  it("an intermediate the client trusts itself (in `ca`) counts as an anchor", async () => {
    const leaf = makeLeaf(intermediate, { names: ["www.contoso.test"], ...dates });
    const r = await probe(leaf, [...CA, intermediate.cert]);
    expect(r.leafIssuerFound).toBe(true);
  });

  it.each([
    ["prime256v1", 256],
    ["secp384r1", 384],
    ["secp521r1", 521],
  ])("an EC key on %s: %i bits, self-issued", async (curve, bits) => {
    const r = await probe(ecCertificate(curve));
    expect(r.certificate.key).toEqual({ type: "ec", bits, curve });
    expect(r.certificate.signature?.name).toBe("ecdsa-with-SHA256");
    expect(r.certificate.selfIssued).toBe(true);
  });
});

describe("the served leaf's Certificate Transparency hashes, read over a real handshake", () => {
  /** `openssl x509 -pubkey | openssl pkey -pubin -outform DER | sha256`. */
  function opensslPubkeySha256(pem: string): string {
    const spki = execFileSync("openssl", ["x509", "-pubkey", "-noout"], { input: pem });
    const der = execFileSync("openssl", ["pkey", "-pubin", "-outform", "DER"], { input: spki });
    return createHash("sha256").update(der).digest("hex");
  }

  it("a leaf with embedded SCTs: its key's hash, and its precertificate's TBS hash", async () => {
    const options: CtCertificateOptions = { names: ["www.contoso.test"], sctBytes: 240, ca: root };
    const leaf = ctCertificate("certificate", { ...options, ...dates });
    const r = await probe({ cert: leaf.pem, key: root.key });
    expect(r.chainProblem).toBeUndefined();
    expect(r.certificate.pubkeySha256).toBe(opensslPubkeySha256(leaf.pem));
    expect(r.certificate.tbsSha256).toBe(expectedTbsSha256({ ...options, ...dates }));
    const precertificate = ctCertificate("precertificate", { ...options, ...dates });
    expect(ctHashesOfDer(precertificate.der).tbsSha256).toBe(r.certificate.tbsSha256);
  });

  it("an EC leaf from openssl (no CT extension): the TBS as issued", async () => {
    const issued = ecCertificate("prime256v1");
    const r = await probe(issued);
    expect(r.certificate.pubkeySha256).toBe(opensslPubkeySha256(issued.cert));
    // node-forge's reading of the TBS, written back: the bytes as issued.
    const der = new X509Certificate(issued.cert).raw.toString("binary");
    const tbs = (forge.asn1.fromDer(der).value as forge.asn1.Asn1[])[0] as forge.asn1.Asn1;
    const bytes = Buffer.from(forge.asn1.toDer(tbs).getBytes(), "binary");
    expect(r.certificate.tbsSha256).toBe(createHash("sha256").update(bytes).digest("hex"));
  });
});

describe("the served leaf's SHA-1 thumbprint (the one Azure shows), read over a real handshake", () => {
  /** `openssl x509 -fingerprint -sha1 -noout`: "SHA1 Fingerprint=AB:CD:...". */
  function opensslSha1(pem: string): string {
    const out = execFileSync("openssl", ["x509", "-fingerprint", "-sha1", "-noout"], {
      input: pem,
    });
    return out.toString().trim().split("=")[1]?.replaceAll(":", "") ?? "";
  }

  it("equals openssl's SHA-1 fingerprint and crypto's SHA-1 of the same DER", async () => {
    const issued = ecCertificate("prime256v1");
    const r = await probe(issued);
    const der = new X509Certificate(issued.cert).raw;
    expect(r.certificate.sha1Thumbprint).toMatch(/^[0-9A-F]{40}$/);
    expect(r.certificate.sha1Thumbprint).toBe(opensslSha1(issued.cert));
    expect(r.certificate.sha1Thumbprint).toBe(
      createHash("sha1").update(der).digest("hex").toUpperCase(),
    );
  });
});
