import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A PEM key and a self-signed certificate for localhost and 127.0.0.1. */
export interface SelfSignedCert {
  key: string;
  cert: string;
}

// RSA key generation takes a noticeable moment on 2 cores: do it once per test process.
let cached: Promise<SelfSignedCert> | undefined;

/**
 * A throwaway certificate (1 day) for local HTTPS fakes. The certificate is its own CA: pass
 * `cert` as the trusted `ca` to the client under test.
 */
export function makeSelfSignedCert(): Promise<SelfSignedCert> {
  cached ??= generate().catch((error: unknown) => {
    // A failed attempt must not poison the cache for the rest of the process.
    cached = undefined;
    throw error;
  });
  return cached;
}

async function generate(): Promise<SelfSignedCert> {
  const dir = await mkdtemp(join(tmpdir(), "certsched-tls-"));
  try {
    const keyPath = join(dir, "key.pem");
    const certPath = join(dir, "cert.pem");
    await run("openssl", [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost,IP:127.0.0.1",
      "-keyout",
      keyPath,
      "-out",
      certPath,
    ]);
    const [key, cert] = await Promise.all([readFile(keyPath, "utf8"), readFile(certPath, "utf8")]);
    return { key, cert };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
