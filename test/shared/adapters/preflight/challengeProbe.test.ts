import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  challengeProbe,
  MAX_BODY_BYTES,
} from "../../../../shared/adapters/preflight/challengeProbe.js";
import type { ChallengeAnswer } from "../../../../shared/core/ports/preflightProbes.js";
import { MAX_CHECK_DETAIL } from "../../../../shared/core/preflight/preflight.js";
import { parseConnectTo } from "../../../../shared/core/verification/connectTo.js";
import {
  CHALLENGE_OTHER_HOST,
  type HostingChallenge,
  type SeedCertificate,
  type Simulator,
  startSimulator,
} from "../../../../sim/index.js";

/**
 * The HTTP-01 probe against the simulator's challenge listener (and, where the simulator cannot
 * stage it, a plain server of the test's own), over real loopback sockets.
 */

const expiryDate = new Date(Date.now() + 40 * 86_400_000);
const SEEDS: SeedCertificate[] = [
  { certificateName: "www-contoso", rootDomain: "www.contoso.test", expiryDate },
  { certificateName: "shop-contoso", rootDomain: "shop.contoso.test", expiryDate },
];
const TOKEN_PATH = /^\/\.well-known\/acme-challenge\/certsched-preflight-[0-9a-f]{24}$/;

let sim: Simulator | undefined;
const servers: Server[] = [];
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function setUp(timeoutMs = 5_000) {
  sim = await startSimulator({ certificates: SEEDS, hosting: {} });
  const hosting = sim.hosting;
  if (!hosting) throw new Error("no hosting side");
  const challenge: HostingChallenge = hosting.challenge;
  // As the sandbox routes: port 80 to the challenge listener, every other port to TLS.
  const connectTo = parseConnectTo(`${challenge.connectTo},${hosting.connectTo}`);
  const probe = challengeProbe({ connectTo, timeoutMs });
  return { challenge, probe, at: `127.0.0.1:${challenge.port}` };
}

/** A plain HTTP server of the test's own, on loopback; `handle` writes the answer. */
async function ownServer(handle: (res: ServerResponse) => void): Promise<number> {
  const server = createServer((_req, res) => handle(res));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port: 0 }, resolve));
  return (server.address() as AddressInfo).port;
}

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port: 0 }, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const unreachable = (answer: ChallengeAnswer) => {
  if (answer.kind !== "unreachable") throw new Error(`answered ${JSON.stringify(answer)}`);
  return answer.detail;
};

describe("challengeProbe against the simulator's challenge listener", () => {
  it("an app answering 404 (the default) has answered; the Host header stays the domain", async () => {
    const { challenge, probe } = await setUp();

    const first = await probe.reach("www.contoso.test");
    const second = await probe.reach("WWW.Contoso.test.");

    expect(first).toEqual({ kind: "answered", status: 404 });
    expect(second).toEqual({ kind: "answered", status: 404 });
    const [a, b] = challenge.requests;
    expect(a).toMatchObject({ method: "GET", host: "www.contoso.test", behaviour: "answer" });
    expect(a?.path).toMatch(TOKEN_PATH);
    expect(b?.host).toBe("www.contoso.test");
    // A fresh token each time: no cache or stale file can stand in for the app.
    expect(b?.path).toMatch(TOKEN_PATH);
    expect(b?.path).not.toBe(a?.path);
  });

  it("any other status is an answer too", async () => {
    const { challenge, probe } = await setUp();
    challenge.behave("www.contoso.test", { status: 200 });
    challenge.behave("shop.contoso.test", { status: 503 });

    expect(await probe.reach("www.contoso.test")).toEqual({ kind: "answered", status: 200 });
    expect(await probe.reach("shop.contoso.test")).toEqual({ kind: "answered", status: 503 });
  });

  it("refuse: the connection closed without an answer is unreachable", async () => {
    const { challenge, probe, at } = await setUp();
    challenge.behave("www.contoso.test", "refuse");

    expect(unreachable(await probe.reach("www.contoso.test"))).toBe(
      `the connection was closed without an answer at ${at}`,
    );
    expect(challenge.requests).toHaveLength(1);
  });

  it("a name no app serves gets no answer: unreachable", async () => {
    const { probe, at } = await setUp();

    expect(unreachable(await probe.reach("nobody.contoso.test"))).toBe(
      `the connection was closed without an answer at ${at}`,
    );
  });

  it("hang: unreachable once the timeout passes, not later", async () => {
    const { challenge, probe, at } = await setUp(400);
    challenge.behave("www.contoso.test", "hang");

    const started = performance.now();
    const answer = await probe.reach("www.contoso.test");
    const took = performance.now() - started;

    expect(unreachable(answer)).toBe(`no answer within 400 ms at ${at}`);
    expect(took).toBeGreaterThanOrEqual(390);
    expect(took).toBeLessThan(400 + 5_000);
  });

  it("tls-only: a TLS answer on the plain port is unreachable, said as such", async () => {
    const { challenge, probe, at } = await setUp();
    challenge.behave("www.contoso.test", "tls-only");

    expect(unreachable(await probe.reach("www.contoso.test"))).toBe(
      `${at} answered in TLS, not plain HTTP: port 80 must answer http://`,
    );
  });

  it("redirect-elsewhere: a redirect to another host is unreachable, naming the host", async () => {
    const { challenge, probe } = await setUp();
    challenge.behave("www.contoso.test", "redirect-elsewhere");

    expect(unreachable(await probe.reach("www.contoso.test"))).toBe(
      `redirects to ${CHALLENGE_OTHER_HOST} (301 to http://${CHALLENGE_OTHER_HOST})`,
    );
    // Not followed: the listener saw one request, and nothing went anywhere else.
    expect(challenge.requests).toHaveLength(1);
  });

  it("redirect-https: a redirect to https on the same host is the app answering", async () => {
    const { challenge, probe } = await setUp();
    challenge.behave("www.contoso.test", "redirect-https");

    expect(await probe.reach("www.contoso.test")).toEqual({ kind: "answered", status: 301 });
    expect(challenge.requests).toHaveLength(1);
  });

  it("a connect-to rule for one domain is followed, the Host header still the domain", async () => {
    const { challenge } = await setUp();
    const probe = challengeProbe({
      connectTo: parseConnectTo(challenge.domainConnectTo()),
      timeoutMs: 5_000,
    });

    expect(await probe.reach("shop.contoso.test")).toEqual({ kind: "answered", status: 404 });
    expect(challenge.requests.map((r) => r.host)).toEqual(["shop.contoso.test"]);
  });

  it("a caller's signal ends the probe at once", async () => {
    const { challenge, probe } = await setUp();
    challenge.behave("www.contoso.test", "hang");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);

    const started = performance.now();
    const detail = unreachable(await probe.reach("www.contoso.test", controller.signal));

    expect(detail).toBe("the check was cancelled");
    // The probe's own timeout is later still: only the signal ends it this early.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe("challengeProbe: what is never probed, and connections that fail", () => {
  it("connection refused is unreachable, naming where it connected", async () => {
    const port = await closedPort();
    const probe = challengeProbe({
      connectTo: parseConnectTo(`:80:127.0.0.1:${port}`),
      timeoutMs: 5_000,
    });

    expect(unreachable(await probe.reach("www.contoso.test"))).toBe(
      `connection refused at 127.0.0.1:${port}`,
    );
  });

  it("without a rule naming the address, a loopback name or an IP address is not probed", async () => {
    const probe = challengeProbe({ connectTo: [], timeoutMs: 5_000 });

    expect(unreachable(await probe.reach("localhost"))).toBe(
      "not probed: localhost: it is a loopback name (localhost); route it with CERTSCHED_VERIFY_CONNECT_TO to check it anyway",
    );
    expect(unreachable(await probe.reach("127.0.0.1"))).toMatch(
      /^not probed: 127\.0\.0\.1: it is an IP address, not a DNS host name; route it/,
    );
    // A rule that maps the port but not the host leaves the service's name deciding: still
    // refused, and nothing reaches the server behind that port.
    let asked = 0;
    const port = await ownServer((res) => {
      asked += 1;
      res.end();
    });
    const portOnly = challengeProbe({
      connectTo: parseConnectTo(`:80::${port}`),
      timeoutMs: 5_000,
    });
    expect(unreachable(await portOnly.reach("localhost"))).toMatch(/^not probed: localhost: /);
    expect(unreachable(await portOnly.reach("127.0.0.1"))).toMatch(/^not probed: 127\.0\.0\.1: /);
    expect(asked).toBe(0);
    // A rule naming the address is the operator's word: then it is probed.
    const named = challengeProbe({
      connectTo: parseConnectTo(`localhost:80:127.0.0.1:${port}`),
      timeoutMs: 5_000,
    });
    expect(await named.reach("localhost")).toEqual({ kind: "answered", status: 200 });
    expect(asked).toBe(1);
  });

  it("a domain that is no host name never becomes a URL", async () => {
    const port = await ownServer((res) => res.end());
    const probe = challengeProbe({
      connectTo: parseConnectTo(`:80:127.0.0.1:${port}`),
      timeoutMs: 5_000,
    });

    for (const domain of ["evil.test/x@other.test", "a b.test", "x.test:81", "\u001b[2J.test"]) {
      expect(unreachable(await probe.reach(domain)), domain).toMatch(/is not a host name$/);
    }
    expect(unreachable(await probe.reach("\u001b[2J.test"))).toBe(
      '"\\u{1b}[2J.test" is not a host name',
    );
  });
});

describe("challengeProbe: bounds", () => {
  let left = 0;
  const hangAfter = (bytes: number) => (res: ServerResponse) => {
    res.on("close", () => {
      left += 1;
    });
    res.writeHead(200, { "content-length": String(bytes + 1) });
    res.write(Buffer.alloc(bytes, "x"));
    // The last byte never comes.
  };

  it(`reads at most ${MAX_BODY_BYTES} bytes of the body: past that it stops, it does not wait for the rest`, async () => {
    const port = await ownServer(hangAfter(MAX_BODY_BYTES));
    const probe = challengeProbe({
      connectTo: parseConnectTo(`:80:127.0.0.1:${port}`),
      timeoutMs: 20_000,
    });

    left = 0;
    const started = performance.now();
    expect(await probe.reach("www.contoso.test")).toEqual({ kind: "answered", status: 200 });
    // Well under the 20 s timeout it would otherwise wait for (slack for a loaded machine).
    expect(performance.now() - started).toBeLessThan(10_000);
    // The connection is dropped, not left open with the rest unread.
    await vi.waitFor(() => expect(left).toBe(1), { timeout: 1_000 });
  });

  it("one byte short of the bound it keeps reading until the timeout; the status still stands", async () => {
    const port = await ownServer(hangAfter(MAX_BODY_BYTES - 1));
    const probe = challengeProbe({
      connectTo: parseConnectTo(`:80:127.0.0.1:${port}`),
      timeoutMs: 500,
    });

    const started = performance.now();
    expect(await probe.reach("www.contoso.test")).toEqual({ kind: "answered", status: 200 });
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(490);
    expect(took).toBeLessThan(500 + 5_000);
  });

  it("a large body from the simulator is answered without reading it all", async () => {
    const { challenge, probe } = await setUp();
    challenge.behave("www.contoso.test", { status: 200, bodyBytes: 256 * 1024 * 1024 });

    const started = performance.now();
    expect(await probe.reach("www.contoso.test")).toEqual({ kind: "answered", status: 200 });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it(`a detail of exactly ${MAX_CHECK_DETAIL} characters is kept whole; one more is cut to ${MAX_CHECK_DETAIL}`, async () => {
    // "redirects to H (301 to http://H:8080)" is 2|H| + 35 characters; without the port, 2|H| + 30.
    const hostOf = (length: number) => {
      const labels: string[] = [];
      let left = length;
      while (left > 0) {
        const take = Math.min(60, left === 61 ? 59 : left);
        labels.push("a".repeat(take));
        left -= take + 1;
      }
      const host = labels.join(".");
      expect(host).toHaveLength(length);
      return host;
    };
    const exact = hostOf(132);
    const over = hostOf(135);
    let location = "";
    const port = await ownServer((res) => {
      res.writeHead(302, { location });
      res.end();
    });
    const probe = challengeProbe({
      connectTo: parseConnectTo(`:80:127.0.0.1:${port}`),
      timeoutMs: 5_000,
    });

    location = `http://${exact}:8080/x`;
    const whole = unreachable(await probe.reach("www.contoso.test"));
    location = `http://${over}/x`;
    const cut = unreachable(await probe.reach("www.contoso.test"));

    expect(whole).toBe(`redirects to ${exact} (302 to http://${exact}:8080)`);
    expect(whole).toHaveLength(MAX_CHECK_DETAIL);
    expect(cut).toHaveLength(MAX_CHECK_DETAIL);
    expect(cut).toBe(
      `${`redirects to ${over} (302 to http://${over})`.slice(0, MAX_CHECK_DETAIL - 1)}…`,
    );
  });

  it("a Location that is not a URL is no answer from the app", async () => {
    const port = await ownServer((res) => {
      res.writeHead(301, { location: "http://[bad/x" });
      res.end();
    });
    const probe = challengeProbe({
      connectTo: parseConnectTo(`:80:127.0.0.1:${port}`),
      timeoutMs: 5_000,
    });

    expect(unreachable(await probe.reach("www.contoso.test"))).toBe(
      'answered 301 with a Location that is not a URL ("http://[bad/x")',
    );
  });

  it("an answer that is not HTTP is unreachable", async () => {
    const { createServer: createNetServer } = await import("node:net");
    // Read what comes (else the client's close is never seen), answer in another protocol.
    const server = createNetServer((socket) => socket.resume().end("SSH-2.0-OpenSSH_9.6\r\n"));
    await new Promise<void>((resolve) => server.listen({ host: "127.0.0.1", port: 0 }, resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const probe = challengeProbe({
        connectTo: parseConnectTo(`:80:127.0.0.1:${port}`),
        timeoutMs: 5_000,
      });
      expect(unreachable(await probe.reach("www.contoso.test"))).toBe(
        `127.0.0.1:${port} answered something that is not HTTP`,
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
