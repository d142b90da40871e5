import tls from "node:tls";
import { afterEach, describe, expect, it, vi } from "vitest";
import { probeTls } from "../../../../shared/adapters/probes/tlsProbe.js";
import type { ProbeResult } from "../../../../shared/core/ports/probes.js";
import { parseConnectTo } from "../../../../shared/core/verification/connectTo.js";
import { makeCa, makeLeaf } from "../../../support/certificates.js";
import {
  closedPort,
  type RecordingServer,
  startSilentServer,
  startTlsServer,
} from "../../../support/tlsServers.js";

const HOUR = 3_600_000;
const DAY = 86_400_000;
/** Whole seconds: X.509 keeps no milliseconds. */
const now = new Date(Math.floor(Date.now() / 1000) * 1000);
const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);

const trusted = makeCa("certsched test root CA");
const unknown = makeCa("an unknown CA");
const CA = [...tls.rootCertificates, trusted.cert];

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function serve(...args: Parameters<typeof startTlsServer>): Promise<RecordingServer> {
  const server = await startTlsServer(...args);
  closers.push(() => server.close());
  return server;
}

/** Probes `host` (port 443) through connect-to to the loopback server, as users behind split DNS do. */
function probe(host: string, port: number, timeoutMs = 5_000): Promise<ProbeResult> {
  return probeTls(
    { host, port: 443 },
    { connectTo: parseConnectTo(`${host}:443:127.0.0.1:${port}`), timeoutMs, ca: CA },
  );
}

function reached(result: ProbeResult) {
  if (!result.reached)
    throw new Error(`expected a certificate, got ${result.step}: ${result.message}`);
  return result;
}

const valid = { notBefore: at(-DAY), notAfter: at(60 * DAY) };

describe("the TLS probe, over real sockets on loopback", () => {
  it("reads the served leaf: dates, issuer, serial, SHA-256 thumbprint, names; chain and name good", async () => {
    const leaf = makeLeaf(trusted, { names: ["www.contoso.test"], serial: "0badc0de", ...valid });
    const server = await serve(leaf);
    const r = reached(await probe("www.contoso.test", server.port));
    expect(r.chainProblem).toBeUndefined();
    expect(r.nameProblem).toBeUndefined();
    expect(r.connectedTo).toBe(`127.0.0.1:${server.port}`);
    expect(r.certificate.notAfter.toISOString()).toBe(valid.notAfter.toISOString());
    expect(r.certificate.notBefore.toISOString()).toBe(valid.notBefore.toISOString());
    expect(r.certificate.issuer).toBe("CN=certsched test root CA");
    expect(r.certificate.serial).toBe("0BADC0DE");
    expect(r.certificate.thumbprint).toBe(
      new (await import("node:crypto")).X509Certificate(leaf.cert).fingerprint256.replaceAll(
        ":",
        "",
      ),
    );
    expect(r.certificate.thumbprint).toMatch(/^[0-9A-F]{64}$/);
    expect(r.certificate.altNames).toEqual(["DNS:www.contoso.test"]);
  });

  it("sends the original host as SNI while connecting elsewhere, and the server picks by it", async () => {
    const fallback = makeLeaf(trusted, { names: ["default.test"], ...valid });
    const api = makeLeaf(trusted, { names: ["api.contoso.test"], ...valid });
    const server = await serve(fallback, { "api.contoso.test": api });
    const r = reached(await probe("api.contoso.test", server.port));
    await server.closedAfterHandshakes(1);
    expect(server.serverNames).toEqual(["api.contoso.test"]);
    expect(r.certificate.altNames).toEqual(["DNS:api.contoso.test"]);
    expect(r.nameProblem).toBeUndefined();
  });

  it("never sends application data: the server receives zero bytes after the handshake", async () => {
    const server = await serve(makeLeaf(trusted, { names: ["www.contoso.test"], ...valid }));
    reached(await probe("www.contoso.test", server.port));
    // Everything the client sent arrived before the server saw its close.
    await server.closedAfterHandshakes(1);
    expect(server.handshakes()).toBe(1);
    expect(server.bytesAfterHandshake()).toBe(0);
  });

  describe("name matching (tls.checkServerIdentity)", () => {
    it.each([
      // [names on the certificate, host probed, covered?]
      [["*.contoso.test"], "www.contoso.test", true],
      [["*.contoso.test"], "contoso.test", false],
      [["*.contoso.test"], "a.b.contoso.test", false],
      [["contoso.test", "www.contoso.test", "api.contoso.test"], "api.contoso.test", true],
      [["contoso.test", "www.contoso.test"], "api.contoso.test", false],
      [["WWW.Contoso.Test"], "www.contoso.test", true],
      [["other.test"], "www.contoso.test", false],
    ])("%j for %s: covered %s", async (names, host, covered) => {
      const server = await serve(makeLeaf(trusted, { names, ...valid }));
      const r = reached(await probe(host, server.port));
      expect(r.chainProblem).toBeUndefined();
      if (covered) expect(r.nameProblem).toBeUndefined();
      else expect(r.nameProblem).toMatch(/does not match certificate's altnames/);
    });

    it("checks an IP address against the certificate's IP entries, and sends no SNI for it", async () => {
      const server = await serve(makeLeaf(trusted, { names: ["127.0.0.1"], ...valid }));
      const r = reached(
        await probeTls({ host: "127.0.0.1", port: server.port }, { timeoutMs: 5_000, ca: CA }),
      );
      expect(r.nameProblem).toBeUndefined();
      await server.closedAfterHandshakes(1);
      expect(server.serverNames).toEqual([undefined]);
    });
  });

  describe("the chain", () => {
    it("is untrusted when issued by a CA neither Node's store nor the extra CAs hold", async () => {
      const server = await serve(makeLeaf(unknown, { names: ["www.contoso.test"], ...valid }));
      const r = reached(await probe("www.contoso.test", server.port));
      expect(r.chainProblem?.code).toBe("UNABLE_TO_VERIFY_LEAF_SIGNATURE");
    });

    it("is untrusted when the server sends the unknown CA along", async () => {
      const leaf = makeLeaf(unknown, { names: ["www.contoso.test"], ...valid });
      const server = await serve({ key: leaf.key, cert: leaf.cert + unknown.cert });
      const r = reached(await probe("www.contoso.test", server.port));
      expect(r.chainProblem?.code).toBe("SELF_SIGNED_CERT_IN_CHAIN");
    });

    it("is trusted when the leaf expired an hour ago but comes from a trusted CA: its dates are the judge's", async () => {
      const server = await serve(
        makeLeaf(trusted, {
          names: ["www.contoso.test"],
          notBefore: at(-30 * DAY),
          notAfter: at(-HOUR),
        }),
      );
      const r = reached(await probe("www.contoso.test", server.port));
      expect(r.chainProblem).toBeUndefined();
      expect(r.certificate.notAfter.toISOString()).toBe(at(-HOUR).toISOString());
    });

    // Regression: OpenSSL reports its last error, CERT_HAS_EXPIRED, for an unknown CA's expired leaf too.
    it("is untrusted when an unknown CA's leaf expired an hour ago (not merely expired)", async () => {
      const server = await serve(
        makeLeaf(unknown, {
          names: ["www.contoso.test"],
          notBefore: at(-30 * DAY),
          notAfter: at(-HOUR),
        }),
      );
      const r = reached(await probe("www.contoso.test", server.port));
      expect(r.chainProblem?.code).toBe("UNABLE_TO_VERIFY_LEAF_SIGNATURE");
    });

    it("is untrusted when an unknown CA sends itself along with an expired leaf", async () => {
      const leaf = makeLeaf(unknown, {
        names: ["www.contoso.test"],
        notBefore: at(-30 * DAY),
        notAfter: at(-HOUR),
      });
      const server = await serve({ key: leaf.key, cert: leaf.cert + unknown.cert });
      const r = reached(await probe("www.contoso.test", server.port));
      expect(r.chainProblem?.code).toBe("SELF_SIGNED_CERT_IN_CHAIN");
    });

    it("is untrusted for a self-signed certificate", async () => {
      const server = await serve({ key: unknown.key, cert: unknown.cert });
      const r = reached(await probe("www.contoso.test", server.port));
      expect(r.chainProblem).toBeDefined();
    });
  });

  describe("one secure context per trust list (not one per connection)", () => {
    it("probes again and again with one trust list build one context; trust is as before", async () => {
      const server = await serve(makeLeaf(trusted, { names: ["www.contoso.test"], ...valid }));
      // Another list, its own array: the unknown CA only. The same site is untrusted under it.
      const other = [unknown.cert];
      const built = vi.spyOn(tls, "createSecureContext");
      try {
        const verdicts: (string | undefined)[] = [];
        for (const ca of [CA, other, CA, other, CA]) {
          const r = reached(
            await probeTls(
              { host: "www.contoso.test", port: 443 },
              {
                connectTo: parseConnectTo(`::127.0.0.1:${server.port}`),
                timeoutMs: 5_000,
                ca,
              },
            ),
          );
          verdicts.push(r.chainProblem?.code);
        }
        expect(verdicts).toEqual([
          undefined,
          "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
          undefined,
          "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
          undefined,
        ]);
        // At most one per list (none for a list an earlier test already used): five before.
        expect(built.mock.calls.length).toBeLessThanOrEqual(2);
      } finally {
        built.mockRestore();
      }
    });
  });

  describe("unreachable", () => {
    it("a closed port: TCP refused", async () => {
      const port = await closedPort();
      const r = await probe("www.contoso.test", port);
      expect(r).toMatchObject({
        reached: false,
        step: "TCP",
        code: "ECONNREFUSED",
        connectedTo: `127.0.0.1:${port}`,
      });
    });

    it("a server that accepts TCP but never completes the handshake: bounded by the timeout", async () => {
      const silent = await startSilentServer();
      closers.push(() => silent.close());
      const r = await probe("www.contoso.test", silent.port, 300);
      expect(r).toMatchObject({ reached: false, step: "TIMEOUT", code: "ETIMEDOUT" });
      if (!r.reached) expect(r.message).toBe("no TLS handshake within 300 ms");
    });

    it("a name that does not resolve: DNS", async () => {
      // .invalid never resolves (RFC 6761); no connect-to rule applies.
      const r = await probeTls(
        { host: "certsched-probe.invalid", port: 443 },
        { timeoutMs: 5_000, ca: CA },
      );
      expect(r).toMatchObject({ reached: false, step: "DNS" });
    });

    it("a server that is not TLS: the handshake fails", async () => {
      const net = await import("node:net");
      const plain = net.createServer((socket) => {
        // Flowing, so it reads the client's close and closes too.
        socket.resume();
        socket.end("HTTP/1.1 400 Bad Request\r\n\r\n");
      });
      await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
      closers.push(() => new Promise((resolve) => plain.close(() => resolve())));
      const r = await probe("www.contoso.test", (plain.address() as { port: number }).port);
      expect(r).toMatchObject({
        reached: false,
        step: "TLS",
        code: expect.stringMatching(/^ERR_SSL_/),
      });
      // OpenSSL's reason, not its error queue line (source paths, a trailing newline).
      if (!r.reached) expect(r.message).toMatch(/^[a-z][a-z ]+$/);
    });

    it("a trust list with nothing readable trusts nothing (and crashes nothing)", async () => {
      const server = await serve(makeLeaf(trusted, { names: ["www.contoso.test"], ...valid }));
      const r = await probeTls(
        { host: "www.contoso.test", port: 443 },
        {
          connectTo: parseConnectTo(`::127.0.0.1:${server.port}`),
          timeoutMs: 5_000,
          ca: ["-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n"],
        },
      );
      expect(reached(r).chainProblem).toBeDefined();
    });

    it("a cancelled probe stops at once", async () => {
      const silent = await startSilentServer();
      closers.push(() => silent.close());
      const controller = new AbortController();
      const pending = probeTls(
        { host: "www.contoso.test", port: 443 },
        {
          connectTo: parseConnectTo(`::127.0.0.1:${silent.port}`),
          timeoutMs: 60_000,
          ca: CA,
          signal: controller.signal,
        },
      );
      controller.abort();
      expect(await pending).toMatchObject({ reached: false, step: "TIMEOUT", code: "ABORTED" });
    });
  });
});
