import net from "node:net";
import { hostname } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { probeTls } from "../../../../shared/adapters/probes/tlsProbe.js";
import { loadVerifySettings } from "../../../../shared/app/config/verifySettings.js";
import type { AccountPorts } from "../../../../shared/app/services.js";
import { fromServiceRecord } from "../../../../shared/core/inventory/fromRecords.js";
import { memoryInventory } from "../../../../shared/core/ports/inventory.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import { parseConnectTo } from "../../../../shared/core/verification/connectTo.js";
import type { InventoryResult } from "../../../../shared/core/verification/inventoryResult.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { verifyInventory } from "../../../../shared/usecases/steps/verifyInventory.js";
import { type Simulator, startSimulator } from "../../../../sim/index.js";
import { collectingLogger, runtimeFor } from "../../../support/app.js";
import { makeCa, makeLeaf } from "../../../support/certificates.js";
import { type RecordingServer, startTlsServer } from "../../../support/tlsServers.js";

/**
 * The service's due list (readable by any Reader, written by someone else) must not aim certsched's
 * probes at its own network. A name from the service is a DNS host name on port 443 at a public
 * address; the operator's words (CERTSCHED_WATCH, a connect-to target) may name anything.
 */

const now = new Date(Math.floor(Date.now() / 1000) * 1000);
const ca = makeCa("service names CA");
const leafFor = (names: string[]) =>
  makeLeaf(ca, {
    names,
    notBefore: new Date(now.getTime() - DAY_MS),
    notAfter: new Date(now.getTime() + 60 * DAY_MS),
  });

/** A plain TCP listener that counts connections: what a port scan would touch. */
async function countingPort(): Promise<{ port: number; count(): number; close(): Promise<void> }> {
  let n = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    n += 1;
    sockets.add(socket);
    socket.on("error", () => {});
    socket.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    count: () => n,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function tlsServer(names: string[]): Promise<RecordingServer> {
  const server = await startTlsServer(leafFor(names));
  closers.push(() => server.close());
  return server;
}

/** The due list holds `domains` as rootDomains of App Service certificates; verify it. */
async function verifyDue(
  domains: readonly string[],
  env: { connectTo?: string; watch?: string } = {},
): Promise<Record<string, InventoryResult>> {
  const sim: Simulator = await startSimulator({
    certificates: domains.map((rootDomain, i) => ({
      certificateName: `c${i}`,
      rootDomain,
      expiryDate: new Date(now.getTime() + 10 * DAY_MS),
    })),
  });
  const inventory = memoryInventory();
  const runtime: AccountPorts = runtimeFor(sim, env.watch ? { CERTSCHED_WATCH: env.watch } : {}, {
    inventory,
    ledger: memoryLedger(),
  });
  closers.push(async () => {
    await runtime.close();
    await sim.close();
  });
  const { certificates } = await runtime.client.listDue();
  await inventory.upsert(certificates.map((c) => fromServiceRecord(c, "due-list", now)));
  const { log } = collectingLogger();
  const v = await verifyInventory(runtime, log, {
    trigger: "timer",
    settings: loadVerifySettings({
      CERTSCHED_HTTP_TIMEOUT: "3s",
      ...(env.connectTo ? { CERTSCHED_VERIFY_CONNECT_TO: env.connectTo } : {}),
    }),
    ca: [ca.cert],
  });
  return Object.fromEntries(v.results.map((r) => [r.certificateName ?? r.domain, r]));
}

const RULE =
  "a name from the service is probed only as a DNS host name on port 443 at a public address";

describe("names from the service are DNS host names: no port, no address, no loopback name", () => {
  it("a due list naming 127.0.0.1:PORT or localhost:PORT gets no connection, and one answer for every port", async () => {
    const tlsPort = await tlsServer(["127.0.0.1", "localhost"]);
    const plain = await countingPort();
    closers.push(() => plain.close());
    const domains = [
      `127.0.0.1:${tlsPort.port}`,
      `localhost:${plain.port}`,
      `LOCALHOST.:${tlsPort.port}`,
      `[::1]:${plain.port}`,
      `[::ffff:127.0.0.1]:${tlsPort.port}`,
      `2130706433:${plain.port}`,
      `0x7f.1:${tlsPort.port}`,
      `www.contoso.test:${plain.port}`,
    ];
    const r = await verifyDue(domains);
    expect(tlsPort.handshakes()).toBe(0);
    expect(plain.count()).toBe(0);
    domains.forEach((domain, i) => {
      const result = r[`c${i}`];
      expect(result, domain).toMatchObject({ status: "unverifiable", source: "tls" });
      expect(result?.detail, domain).toMatch(/^not probed: its domain "/);
      expect(result?.detail, domain).toContain(RULE);
      expect(result?.servedNotAfter).toBeUndefined();
    });
    expect(r.c0?.detail).toContain("because it carries a port");
    expect(r.c3?.detail).toContain("because it is an IP address, not a DNS host name");
  });

  it("refuses every spelling of an address and every loopback name, without a port too", async () => {
    const domains = [
      "127.0.0.1",
      "127.1",
      "2130706433",
      "0x7f.1",
      "0x7F000001",
      "0177.0.0.1",
      "017700000001",
      "10.0.0.5",
      "169.254.169.254",
      "::1",
      "[::1]",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "[0:0:0:0:0:0:0:1]",
      "localhost",
      "localhost.",
      "LocalHost",
      "a.localhost",
      "x.y.localhost.",
      "8.8.8.8",
    ];
    const r = await verifyDue(domains);
    domains.forEach((domain, i) => {
      expect(r[`c${i}`], domain).toMatchObject({ status: "unverifiable" });
      expect(r[`c${i}`]?.detail, domain).toContain(RULE);
    });
    expect(r.c14?.detail).toContain("it is a loopback name (localhost)");
  });

  it("a name that resolves to loopback is not probed; a connect-to target or CERTSCHED_WATCH entry is the operator's, and is", async () => {
    // The machine's own name resolves to a loopback or private address wherever tests run
    // (containers, CI runners): what an attacker's DNS answer would do.
    const own = hostname().toLowerCase();
    const server = await tlsServer([own]);
    // A rule that keeps the host and changes only the port: the name still decides the address.
    const sameHost = `:443::${server.port}`;
    const refused = await verifyDue([own], { connectTo: sameHost });
    expect(refused.c0).toMatchObject({ status: "unverifiable", domain: own });
    expect(refused.c0?.detail).toBe(
      `not probed: ${own} resolves to an address that is not public (loopback, private, link-local or unspecified): ${RULE}; name the endpoint in CERTSCHED_WATCH or route it with CERTSCHED_VERIFY_CONNECT_TO to check it anyway`,
    );
    expect(server.handshakes()).toBe(0);

    // The operator names where to connect: probed.
    const routed = await verifyDue([own], { connectTo: `${own}:443:127.0.0.1:${server.port}` });
    expect(routed.c0).toMatchObject({ status: "ok", daysLeft: 59 });
    await server.closedAfterHandshakes(1);
    expect(server.handshakes()).toBe(1);

    // The operator watches the same name: the shared check is the operator's too.
    const watched = await verifyDue([own], { connectTo: sameHost, watch: own });
    expect(watched.c0).toMatchObject({ status: "ok", daysLeft: 59 });
    await server.closedAfterHandshakes(2);
    expect(server.handshakes()).toBe(2);
  });
});

describe("the probe's public-only mode, over real sockets", () => {
  it("refuses a name resolving to loopback before any connection, and says only that", async () => {
    const server = await tlsServer(["localhost"]);
    const options = { timeoutMs: 3_000, ca: [ca.cert] };
    const refused = await probeTls(
      { host: "localhost", port: server.port },
      { ...options, publicOnly: true },
    );
    expect(refused).toEqual({
      reached: false,
      connectedTo: `localhost:${server.port}`,
      step: "REFUSED",
      code: "ERR_CERTSCHED_NOT_PUBLIC",
      message: "localhost resolves to an address that is not public",
    });
    // An address needs no lookup: refused all the same.
    const literal = await probeTls(
      { host: "127.0.0.1", port: server.port },
      { ...options, publicOnly: true },
    );
    expect(literal).toMatchObject({ reached: false, step: "REFUSED" });
    expect(server.handshakes()).toBe(0);

    // A connect-to rule naming the host is the operator's choice.
    const routed = await probeTls(
      { host: "localhost", port: 443 },
      {
        ...options,
        publicOnly: true,
        connectTo: parseConnectTo(`:443:127.0.0.1:${server.port}`),
      },
    );
    expect(routed.reached).toBe(true);
    const operator = await probeTls({ host: "localhost", port: server.port }, options);
    expect(operator.reached).toBe(true);
    await server.closedAfterHandshakes(2);
    expect(server.handshakes()).toBe(2);
  });
});

describe("a refused name from the service, shown", () => {
  it("its domain is escaped and bounded, its detail too", async () => {
    const hostile = `127.0.0.1:22\u001b[2J${"9".repeat(40_000)}`;
    const r = await verifyDue([hostile]);
    expect(r.c0?.status).toBe("unverifiable");
    expect(r.c0?.domain).toMatch(/^127\.0\.0\.1:22\\u\{1b\}\[2J9+…$/);
    expect(r.c0?.domain.length).toBe(300);
    expect(r.c0?.detail.length).toBeLessThanOrEqual(500);
    expect(r.c0?.detail).toMatch(
      /^not probed: its domain "127\.0\.0\.1:22\\u\{1b\}\[2J9{78}…" is refused because it carries a port: a name from the service is probed only/,
    );
  });
});

describe("an address or loopback name written in other Unicode forms (IDNA maps them to ASCII)", () => {
  it("fullwidth digits, ideographic dots and fullwidth letters are refused as the address or name they become", async () => {
    const server = await tlsServer(["127.0.0.1", "localhost"]);
    const domains = [
      "１２７.０.０.１",
      "127。0。0。1",
      "０ｘ７ｆ．１",
      "１０.０.０.５",
      "ｌｏｃａｌｈｏｓｔ",
      "ａ．ｌｏｃａｌｈｏｓｔ",
    ];
    const r = await verifyDue(domains);
    expect(server.handshakes()).toBe(0);
    domains.forEach((domain, i) => {
      const result = r[`c${i}`];
      expect(result, domain).toMatchObject({ status: "unverifiable", source: "tls" });
      expect(result?.detail, domain).toMatch(/^not probed: its domain "/);
      expect(result?.detail, domain).toContain(RULE);
    });
    for (const i of [0, 1, 2, 3]) {
      expect(r[`c${i}`]?.detail).toContain("because it is an IP address, not a DNS host name");
    }
    for (const i of [4, 5]) {
      expect(r[`c${i}`]?.detail).toContain("because it is a loopback name (localhost)");
    }
  });
});

describe("a CERTSCHED_WATCH entry is the operator's word for its own host and port only", () => {
  it("watching NAME:PORT does not open NAME:443 to the service's name, nor the other way round", async () => {
    const own = hostname().toLowerCase();
    const server = await tlsServer([own]);
    // Port 443 of every host goes to the test server; the host still decides the address.
    const r = await verifyDue([own], {
      connectTo: `:443::${server.port}`,
      watch: `${own}:${server.port}`,
    });
    expect(r.c0).toMatchObject({ status: "unverifiable" });
    expect(r.c0?.detail).toMatch(
      new RegExp(
        `^not probed: ${own.replaceAll(".", "\\.")} resolves to an address that is not public`,
      ),
    );
    const watched = r[`${own}:${server.port}`];
    expect(watched).toMatchObject({ status: "ok" });
    await server.closedAfterHandshakes(1);
    expect(server.handshakes()).toBe(1);
  });
});
