import { X509Certificate } from "node:crypto";
import tls, { type DetailedPeerCertificate } from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import { probeTls } from "../../../../shared/adapters/probes/tlsProbe.js";
import { chainAnchored } from "../../../../shared/adapters/probes/trustAnchor.js";
import { loadVerifySettings } from "../../../../shared/app/config/verifySettings.js";
import { parseEndpoint } from "../../../../shared/core/verification/endpoint.js";
import type { VerifyResult } from "../../../../shared/core/verification/targets.js";
import { verifyTargets } from "../../../../shared/usecases/verifyDomains.js";
import {
  type IntermediateOptions,
  makeCa,
  makeIntermediate,
  makeLeaf,
} from "../../../support/certificates.js";
import { type RecordingServer, startTlsServer } from "../../../support/tlsServers.js";

/**
 * A chain whose intermediate may not issue certificates (basicConstraints CA:FALSE, or a keyUsage
 * without keyCertSign) is untrusted, which the contract puts before expired; OpenSSL reports only
 * its last error (CERT_HAS_EXPIRED) for such a chain.
 */

const HOUR = 3_600_000;
const DAY = 86_400_000;
const now = new Date(Math.floor(Date.now() / 1000) * 1000);
const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);
const root = makeCa("issuer constraints root CA");
const CA = [...tls.rootCertificates, root.cert];

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Serves leaf + intermediate for www.contoso.test, issued under `root`; verifies it. */
async function verifyChain(
  intermediate: IntermediateOptions,
  leafDates: { notBefore: Date; notAfter: Date },
): Promise<VerifyResult> {
  const issuer = makeIntermediate(root, "issuer constraints intermediate", intermediate);
  const leaf = makeLeaf(issuer, { names: ["www.contoso.test"], ...leafDates });
  const server: RecordingServer = await startTlsServer({
    key: leaf.key,
    cert: leaf.cert + issuer.cert,
  });
  closers.push(() => server.close());
  const endpoint = parseEndpoint("www.contoso.test");
  if (typeof endpoint === "string") throw new Error(endpoint);
  const [result] = await verifyTargets([{ endpoint }], {
    probes: { tls: probeTls },
    settings: loadVerifySettings({
      CERTSCHED_VERIFY_CONNECT_TO: `www.contoso.test:443:127.0.0.1:${server.port}`,
      CERTSCHED_HTTP_TIMEOUT: "5s",
    }),
    now: () => new Date(),
    ca: CA,
  });
  return result as VerifyResult;
}

const expiredLeaf = { notBefore: at(-30 * DAY), notAfter: at(-HOUR) };
const validLeaf = { notBefore: at(-DAY), notAfter: at(60 * DAY) };

describe("an issuer that may not issue makes the chain untrusted, before expired", () => {
  it("an intermediate with basicConstraints CA:FALSE and an expired leaf: untrusted, not expired", async () => {
    const r = await verifyChain({ ca: false }, expiredLeaf);
    expect(r.status).toBe("untrusted");
    expect(r.detail).toContain("(INVALID_CA)");
  });

  it("an intermediate whose keyUsage lacks keyCertSign and an expired leaf: refused, not expired", async () => {
    const r = await verifyChain({ keyCertSign: false }, expiredLeaf);
    // Neither OpenSSL (its last error is the leaf's dates) nor Node's chain (it links no issuer
    // without keyCertSign) tells this issuer from a missing one: incomplete-chain, a failed run
    // all the same (certificateFacts.ts, leafIssuerFound). With a valid leaf: untrusted, below.
    expect(r.status).toBe("incomplete-chain");
  });

  it("the same intermediates with a valid leaf: untrusted (OpenSSL's own verdict)", async () => {
    expect((await verifyChain({ ca: false }, validLeaf)).status).toBe("untrusted");
    expect((await verifyChain({ keyCertSign: false }, validLeaf)).status).toBe("untrusted");
  });

  it("a proper intermediate: an expired leaf is expired, a valid one ok", async () => {
    expect((await verifyChain({}, expiredLeaf)).status).toBe("expired");
    expect((await verifyChain({}, validLeaf)).status).toBe("ok");
  });
});

/** The chain as Node hands it back (getPeerCertificate(true)): leaf first, the root linked to itself. */
function peerChain(pems: readonly string[]): DetailedPeerCertificate {
  const certs = pems.map((pem) => new X509Certificate(pem));
  const nodes = certs.map(
    (c) => ({ raw: c.raw, fingerprint256: c.fingerprint256 }) as DetailedPeerCertificate,
  );
  nodes.forEach((node, i) => {
    node.issuerCertificate = nodes[i + 1] ?? node;
  });
  return nodes[0] as DetailedPeerCertificate;
}

describe("chainAnchored: every issuer in the chain must be allowed to issue", () => {
  const leafOf = (issuer: ReturnType<typeof makeIntermediate>) =>
    makeLeaf(issuer, { names: ["www.contoso.test"], ...expiredLeaf }).cert;

  it.each([
    [{}, undefined],
    [{ ca: false }, "INVALID_CA"],
    [{ keyCertSign: false }, "KEYUSAGE_NO_CERTSIGN"],
    [{ ca: false, keyCertSign: false }, "KEYUSAGE_NO_CERTSIGN"],
  ] as const)("intermediate %j: %s", (options, code) => {
    const issuer = makeIntermediate(root, "anchored intermediate", options);
    const anchoring = chainAnchored(peerChain([leafOf(issuer), issuer.cert, root.cert]), [
      root.cert,
    ]);
    expect(anchoring).toEqual(
      code === undefined ? { trusted: true, onlyLeafOutOfDate: true } : { trusted: false, code },
    );
  });
});

describe("a path longer than an issuer's pathLenConstraint", () => {
  /** root → first (pathLen) → second → leaf for www.contoso.test; leaf, second and first served. */
  async function verifyTwoIntermediates(
    pathLen: number,
    leafDates: { notBefore: Date; notAfter: Date },
  ): Promise<VerifyResult> {
    const first = makeIntermediate(root, "path length first", { pathLen });
    const second = makeIntermediate(first, "path length second");
    const leaf = makeLeaf(second, { names: ["www.contoso.test"], ...leafDates });
    const server = await startTlsServer({
      key: leaf.key,
      cert: leaf.cert + second.cert + first.cert,
    });
    closers.push(() => server.close());
    const endpoint = parseEndpoint("www.contoso.test");
    if (typeof endpoint === "string") throw new Error(endpoint);
    const [result] = await verifyTargets([{ endpoint }], {
      probes: { tls: probeTls },
      settings: loadVerifySettings({
        CERTSCHED_VERIFY_CONNECT_TO: `www.contoso.test:443:127.0.0.1:${server.port}`,
        CERTSCHED_HTTP_TIMEOUT: "5s",
      }),
      now: () => new Date(),
      ca: CA,
    });
    return result as VerifyResult;
  }

  it("pathLen 0 with a CA below it and an expired leaf: untrusted (PATH_LENGTH_EXCEEDED), not expired", async () => {
    const r = await verifyTwoIntermediates(0, expiredLeaf);
    expect(r.status).toBe("untrusted");
    expect(r.detail).toContain("(PATH_LENGTH_EXCEEDED)");
  });

  it("pathLen 1 allows that CA: an expired leaf is expired, a valid one ok", async () => {
    expect((await verifyTwoIntermediates(1, expiredLeaf)).status).toBe("expired");
    expect((await verifyTwoIntermediates(1, validLeaf)).status).toBe("ok");
  });

  it("pathLen 0 with a valid leaf: untrusted (OpenSSL's own verdict)", async () => {
    expect((await verifyTwoIntermediates(0, validLeaf)).status).toBe("untrusted");
  });
});

describe("a leaf whose extendedKeyUsage does not allow a TLS server", () => {
  async function verifyLeaf(leafDates: { notBefore: Date; notAfter: Date }): Promise<VerifyResult> {
    const leaf = makeLeaf(root, {
      names: ["www.contoso.test"],
      extKeyUsage: "clientAuth",
      ...leafDates,
    });
    const server = await startTlsServer({ key: leaf.key, cert: leaf.cert });
    closers.push(() => server.close());
    const endpoint = parseEndpoint("www.contoso.test");
    if (typeof endpoint === "string") throw new Error(endpoint);
    const [result] = await verifyTargets([{ endpoint }], {
      probes: { tls: probeTls },
      settings: loadVerifySettings({
        CERTSCHED_VERIFY_CONNECT_TO: `www.contoso.test:443:127.0.0.1:${server.port}`,
        CERTSCHED_HTTP_TIMEOUT: "5s",
      }),
      now: () => new Date(),
      ca: CA,
    });
    return result as VerifyResult;
  }

  it("clientAuth only and expired: untrusted (INVALID_PURPOSE), not expired", async () => {
    const r = await verifyLeaf(expiredLeaf);
    expect(r.status).toBe("untrusted");
    expect(r.detail).toContain("(INVALID_PURPOSE)");
  });

  it("clientAuth only and in date: untrusted (OpenSSL's own verdict)", async () => {
    expect((await verifyLeaf(validLeaf)).status).toBe("untrusted");
  });
});
