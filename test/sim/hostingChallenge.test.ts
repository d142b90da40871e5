import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { parseConnectTo, resolveConnectTo } from "../../shared/core/verification/connectTo.js";
import {
  CHALLENGE_OTHER_HOST,
  type HostingChallenge,
  type SeedCertificate,
  type Simulator,
  startSimulator,
  TLS_ALERT,
} from "../../sim/index.js";

/**
 * The hosting side's plain-HTTP listener: the HTTP-01 challenge path of each App Service domain,
 * by Host header, with the behaviours tests and the sandbox stage. Spoken to byte by byte over
 * loopback, so what a client sees (an answer, a closed socket, TLS bytes, silence) is exact.
 */

const expiryDate = new Date(Date.now() + 40 * 86_400_000);
const SEEDS: SeedCertificate[] = [
  { certificateName: "www-contoso", rootDomain: "www.contoso.test", expiryDate },
  { certificateName: "shop-contoso", rootDomain: "Shop.Contoso.test", expiryDate },
  {
    certificateName: "vault-contoso",
    rootDomain: "vault.contoso.test",
    target: "Cloud Key Vault + DNS",
    keyVaultName: "kv",
    expiryDate,
  },
];

const PATH = "/.well-known/acme-challenge/tok-123";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function setUp(): Promise<HostingChallenge> {
  sim = await startSimulator({ certificates: SEEDS, hosting: {} });
  const challenge = sim.hosting?.challenge;
  if (!challenge) throw new Error("no challenge listener");
  return challenge;
}

interface Heard {
  /** Every byte the listener sent before it closed (or before `waitMs` passed). */
  readonly bytes: Buffer;
  /** Whether the listener closed the connection within `waitMs`. */
  readonly closed: boolean;
}

/** One raw HTTP/1.1 request; waits for the listener to close, at most `waitMs`. */
function ask(port: number, host: string, path = PATH, waitMs = 2_000): Promise<Heard> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect({ host: "127.0.0.1", port }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    });
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ bytes: Buffer.concat(chunks), closed });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNRESET") done(true);
      else reject(error);
    });
    socket.on("close", () => done(true));
  });
}

const statusLine = (heard: Heard) => heard.bytes.toString("latin1").split("\r\n")[0];
const header = (heard: Heard, name: string) =>
  heard.bytes
    .toString("latin1")
    .split("\r\n")
    .find((line) => line.toLowerCase().startsWith(`${name}:`))
    ?.slice(name.length + 1)
    .trim();

describe("the simulator's HTTP challenge listener", () => {
  it("answers 404 at the challenge path of every App Service domain by default, and logs each request", async () => {
    const challenge = await setUp();

    const www = await ask(challenge.port, "www.contoso.test");
    const shop = await ask(challenge.port, "shop.contoso.test:80");

    expect(statusLine(www)).toBe("HTTP/1.1 404 Not Found");
    expect(statusLine(shop)).toBe("HTTP/1.1 404 Not Found");
    expect(challenge.host).toBe("127.0.0.1");
    expect(challenge.requests).toEqual([
      { method: "GET", path: PATH, host: "www.contoso.test", behaviour: "answer" },
      { method: "GET", path: PATH, host: "shop.contoso.test:80", behaviour: "answer" },
    ]);
  });

  it("gives no answer for a name no App Service certificate has (a Key Vault one included)", async () => {
    const challenge = await setUp();

    for (const host of ["vault.contoso.test", "nobody.example"]) {
      const heard = await ask(challenge.port, host);
      expect(heard, host).toEqual({ bytes: Buffer.alloc(0), closed: true });
    }
    expect(challenge.requests.map((r) => r.behaviour)).toEqual([undefined, undefined]);
  });

  it("answers a chosen status with a body of a chosen size", async () => {
    const challenge = await setUp();
    challenge.behave("WWW.contoso.test.", { status: 200, bodyBytes: 100_000 });

    const heard = await ask(challenge.port, "www.contoso.test");

    expect(statusLine(heard)).toBe("HTTP/1.1 200 OK");
    expect(header(heard, "content-length")).toBe("100000");
    const body = heard.bytes.subarray(heard.bytes.indexOf("\r\n\r\n") + 4);
    expect(body.length).toBe(100_000);
    // Only that domain changed.
    expect(statusLine(await ask(challenge.port, "shop.contoso.test"))).toBe(
      "HTTP/1.1 404 Not Found",
    );
  });

  it("refuse: closes the connection at once, with no byte sent", async () => {
    const challenge = await setUp();
    challenge.behave("www.contoso.test", "refuse");

    const heard = await ask(challenge.port, "www.contoso.test");

    expect(heard).toEqual({ bytes: Buffer.alloc(0), closed: true });
    expect(challenge.requests.at(-1)?.behaviour).toBe("refuse");
  });

  it("hang: never answers; closing the simulator ends the connection", async () => {
    const challenge = await setUp();
    challenge.behave("www.contoso.test", "hang");

    const heard = await ask(challenge.port, "www.contoso.test", PATH, 500);
    expect(heard).toEqual({ bytes: Buffer.alloc(0), closed: false });

    const pending = ask(challenge.port, "www.contoso.test", PATH, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await sim?.close();
    expect((await pending).closed).toBe(true);
  });

  it("tls-only: sends a TLS alert record, nothing of HTTP, and closes", async () => {
    const challenge = await setUp();
    challenge.behave("www.contoso.test", "tls-only");

    const heard = await ask(challenge.port, "www.contoso.test");

    expect(heard).toEqual({ bytes: TLS_ALERT, closed: true });
    expect(heard.bytes[0]).toBe(0x15);
  });

  it("redirect-elsewhere: 301 to the same path on another host", async () => {
    const challenge = await setUp();
    challenge.behave("www.contoso.test", "redirect-elsewhere");

    const heard = await ask(challenge.port, "www.contoso.test");

    expect(statusLine(heard)).toBe("HTTP/1.1 301 Moved Permanently");
    expect(header(heard, "location")).toBe(`http://${CHALLENGE_OTHER_HOST}${PATH}`);
  });

  it("redirect-https: 301 to the same path over https on the same host (its port dropped)", async () => {
    const challenge = await setUp();
    challenge.behave("www.contoso.test", "redirect-https");

    const heard = await ask(challenge.port, "www.contoso.test:80");

    expect(statusLine(heard)).toBe("HTTP/1.1 301 Moved Permanently");
    expect(header(heard, "location")).toBe(`https://www.contoso.test${PATH}`);
  });

  it("reset puts one domain, or every domain, back to answering 404", async () => {
    const challenge = await setUp();
    challenge.behave("www.contoso.test", "refuse");
    challenge.behave("shop.contoso.test", "refuse");

    challenge.reset("WWW.CONTOSO.TEST");
    expect(statusLine(await ask(challenge.port, "www.contoso.test"))).toBe(
      "HTTP/1.1 404 Not Found",
    );
    expect((await ask(challenge.port, "shop.contoso.test")).bytes.length).toBe(0);

    challenge.reset();
    expect(statusLine(await ask(challenge.port, "shop.contoso.test"))).toBe(
      "HTTP/1.1 404 Not Found",
    );
  });

  it("refuses a behaviour it does not know, and a status outside 100..599", async () => {
    const challenge = await setUp();

    expect(() => challenge.behave("www.contoso.test", "sleep" as "hang")).toThrow(
      /must be one of answer, refuse, hang, tls-only, redirect-elsewhere, redirect-https/,
    );
    expect(() => challenge.behave("www.contoso.test", { status: 600 })).toThrow(/100\.\.599/);
    expect(() => challenge.behave("www.contoso.test", { status: 99 })).toThrow(/100\.\.599/);
    expect(() => challenge.behave("www.contoso.test", { status: 200, bodyBytes: -1 })).toThrow(
      /bodyBytes/,
    );
  });

  it("connect-to entries: port 80 of every name, or of each App Service domain, land here", async () => {
    const challenge = await setUp();
    const hosting = sim?.hosting;

    expect(challenge.connectTo).toBe(`:80:127.0.0.1:${challenge.port}`);
    expect(challenge.domainConnectTo()).toBe(
      `shop.contoso.test:80:127.0.0.1:${challenge.port},www.contoso.test:80:127.0.0.1:${challenge.port}`,
    );
    // Before the hosting side's catch-all, port 80 comes here and 443 still goes to TLS.
    const rules = parseConnectTo(`${challenge.connectTo},${hosting?.connectTo}`);
    expect(resolveConnectTo(rules, "www.contoso.test", 80)).toEqual({
      host: "127.0.0.1",
      port: challenge.port,
    });
    expect(resolveConnectTo(rules, "www.contoso.test", 443)).toEqual({
      host: "127.0.0.1",
      port: hosting?.port,
    });
  });
});
