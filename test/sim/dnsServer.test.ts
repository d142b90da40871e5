import { promises as dns } from "node:dns";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_CNAME_CHAIN, type SimDnsServer, startDnsServer } from "../../sim/index.js";

/** The simulator's DNS server, asked through Node's own resolver over real loopback sockets. */

const servers: SimDnsServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function start(options: Parameters<typeof startDnsServer>[0] = {}) {
  const server = await startDnsServer(options);
  servers.push(server);
  const resolver = new dns.Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([server.address]);
  return { server, resolver };
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "answered",
    (e: NodeJS.ErrnoException) => e.code,
  );

/** CAA records as Node reads them, without the `type: "CAA"` Node 24 adds to each. */
const caaOf = (records: readonly object[]) =>
  records.map((record) => {
    const { type, ...rest } = record as Record<string, unknown>;
    return type === "CAA" ? rest : record;
  });

describe("startDnsServer", () => {
  it("listens on loopback, port 0 picks a free port, the address is a CERTSCHED_DNS_SERVERS entry", async () => {
    const { server } = await start();
    expect(server.host).toBe("127.0.0.1");
    expect(server.port).toBeGreaterThan(0);
    expect(server.address).toBe(`127.0.0.1:${server.port}`);
  });

  it("answers CAA with flags, tag and value, NS as host names", async () => {
    const { resolver } = await start({
      records: {
        "contoso.com": [
          { type: "CAA", flags: 0, tag: "issue", value: "letsencrypt.org" },
          { type: "CAA", flags: 128, tag: "issuewild", value: ";" },
          { type: "NS", host: "ns1-01.azure-dns.com." },
        ],
      },
    });
    expect(caaOf(await resolver.resolveCaa("contoso.com"))).toEqual([
      { critical: 0, issue: "letsencrypt.org" },
      { critical: 128, issuewild: ";" },
    ]);
    expect(await resolver.resolveNs("CONTOSO.com.")).toEqual(["ns1-01.azure-dns.com"]);
  });

  it("NXDOMAIN for an unknown name, NOERROR without answers for a known name without the type", async () => {
    const { resolver } = await start({ records: { "contoso.com": [{ type: "NS", host: "a." }] } });
    expect(await codeOf(resolver.resolveCaa("nowhere.contoso.com"))).toBe("ENOTFOUND");
    expect(await codeOf(resolver.resolveCaa("contoso.com"))).toBe("ENODATA");
  });

  it("follows a CNAME chain to the target's records, as a recursive resolver does", async () => {
    const { server, resolver } = await start({
      records: {
        "www.contoso.com": [{ type: "CNAME", target: "edge.cdn.net." }],
        "edge.cdn.net": [{ type: "CNAME", target: "pool.cdn.net" }],
        "pool.cdn.net": [{ type: "CAA", flags: 0, tag: "issue", value: "digicert.com" }],
      },
    });
    expect(caaOf(await resolver.resolveCaa("www.contoso.com"))).toEqual([
      { critical: 0, issue: "digicert.com" },
    ]);
    expect(server.queries).toEqual([{ name: "www.contoso.com", type: "CAA", transport: "udp" }]);
  });

  it("a CNAME to nowhere is NXDOMAIN; a loop stops after MAX_CNAME_CHAIN steps (aliases only)", async () => {
    const { resolver } = await start({
      records: {
        "dangling.contoso.com": [{ type: "CNAME", target: "gone.example" }],
        "a.loop": [{ type: "CNAME", target: "b.loop" }],
        "b.loop": [{ type: "CNAME", target: "a.loop" }],
      },
    });
    expect(MAX_CNAME_CHAIN).toBe(8);
    expect(await codeOf(resolver.resolveCaa("dangling.contoso.com"))).toBe("ENOTFOUND");
    // c-ares reads an answer of aliases only as an empty list, not as ENODATA.
    expect(await resolver.resolveCaa("a.loop")).toEqual([]);
  });

  it("set and remove change the next answer", async () => {
    const { server, resolver } = await start();
    expect(await codeOf(resolver.resolveNs("contoso.com"))).toBe("ENOTFOUND");
    server.set("Contoso.com.", [{ type: "NS", host: "ns1.example" }]);
    expect(await resolver.resolveNs("contoso.com")).toEqual(["ns1.example"]);
    server.remove("contoso.com");
    expect(await codeOf(resolver.resolveNs("contoso.com"))).toBe("ENOTFOUND");
  });

  it("servfail answers SERVFAIL; silent never answers; a name's own mode wins over '*'", async () => {
    const { server, resolver } = await start({
      records: { "a.test": [{ type: "NS", host: "x." }], "b.test": [{ type: "NS", host: "y." }] },
    });
    server.mode("*", "servfail");
    server.mode("b.test", "answer");
    expect(await codeOf(resolver.resolveNs("a.test"))).toBe("ESERVFAIL");
    expect(await resolver.resolveNs("b.test")).toEqual(["y"]);
    server.mode("A.test", "silent");
    const started = Date.now();
    expect(await codeOf(resolver.resolveNs("a.test"))).toBe("ETIMEOUT");
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(server.queries.filter((q) => q.name === "a.test").length).toBeGreaterThanOrEqual(2);
  });

  it("an answer too long for UDP is truncated and given whole over TCP on the same port", async () => {
    const value = "x".repeat(10_000);
    const { server, resolver } = await start({
      records: { "big.test": [{ type: "CAA", flags: 0, tag: "issue", value }] },
    });
    expect(caaOf(await resolver.resolveCaa("big.test"))).toEqual([{ critical: 0, issue: value }]);
    expect(server.queries.map((q) => q.transport)).toEqual(["udp", "tcp"]);
  });

  it("stop closes both sockets: the port answers no more", async () => {
    const { server, resolver } = await start({
      records: { "a.test": [{ type: "NS", host: "x." }] },
    });
    await server.stop();
    servers.length = 0;
    expect(await codeOf(resolver.resolveNs("a.test"))).not.toBe("answered");
  });

  it("listens on IPv6 loopback when asked and this host has it", async () => {
    let server: SimDnsServer;
    try {
      server = await startDnsServer({ host: "::1" });
    } catch (error) {
      // No IPv6 loopback on this host: nothing to listen on, which is what must be said.
      expect((error as NodeJS.ErrnoException).code).toMatch(/EADDRNOTAVAIL|EAFNOSUPPORT/);
      return;
    }
    servers.push(server);
    server.set("v6.test", [{ type: "NS", host: "ns.v6." }]);
    expect(server.address).toBe(`[::1]:${server.port}`);
    const resolver = new dns.Resolver({ timeout: 500, tries: 1 });
    resolver.setServers([server.address]);
    expect(await resolver.resolveNs("v6.test")).toEqual(["ns.v6"]);
  });

  it("refuses a port out of range", async () => {
    await expect(startDnsServer({ port: 70_000 })).rejects.toThrow(/0\.\.65535/);
  });
});
