import { afterEach, describe, expect, it } from "vitest";
import {
  dnsLookups,
  MAX_CAA_VALUE,
  MAX_DNS_RECORDS,
  serverAddress,
} from "../../../../shared/adapters/preflight/dnsLookups.js";
import type { DnsAnswer } from "../../../../shared/core/ports/preflightProbes.js";
import { MAX_CHECK_DETAIL } from "../../../../shared/core/preflight/preflight.js";
import { type SimDnsRecord, type SimDnsServer, startDnsServer } from "../../../../sim/index.js";

/** The DNS adapter against the simulator's DNS server, over real loopback sockets. */

const servers: SimDnsServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function start(records: Record<string, SimDnsRecord[]> = {}, host?: string) {
  const server = await startDnsServer({ records, ...(host ? { host } : {}) });
  servers.push(server);
  return server;
}

function lookupsFor(server: SimDnsServer, timeoutMs = 2_000) {
  return dnsLookups({ servers: [{ host: server.host, port: server.port }], timeoutMs });
}

const caa = (flags: number, tag: string, value: string): SimDnsRecord => ({
  type: "CAA",
  flags,
  tag,
  value,
});

function expectUnknown<T>(answer: DnsAnswer<T>): string {
  expect(answer.kind).toBe("unknown");
  const detail = answer.kind === "unknown" ? answer.detail : "";
  expect(detail).not.toMatch(/[\n\r]/);
  expect(detail).not.toMatch(/\bat .+:\d+:\d+/); // no stack
  expect(detail.length).toBeLessThanOrEqual(MAX_CHECK_DETAIL);
  return detail;
}

describe("dnsLookups: CAA", () => {
  it("reads flags 0 and 128 (the issuer-critical bit), the tag as sent and the value", async () => {
    const server = await start({
      "contoso.com": [
        caa(0, "issue", "letsencrypt.org"),
        caa(128, "Issuewild", "digicert.com; cansignhttpexchanges=yes"),
        caa(128, "tbs", "unknown"),
      ],
    });
    expect(await lookupsFor(server).caa("contoso.com")).toEqual({
      kind: "records",
      records: [
        { flags: 0, tag: "issue", value: "letsencrypt.org" },
        { flags: 128, tag: "Issuewild", value: "digicert.com; cansignhttpexchanges=yes" },
        { flags: 128, tag: "tbs", value: "unknown" },
      ],
    });
  });

  it("gives the value back as its UTF-8 text, not Node's one-byte reading of it", async () => {
    const server = await start({ "contoso.com": [caa(0, "issue", "café.example")] });
    const answer = await lookupsFor(server).caa("contoso.com");
    expect(answer).toEqual({
      kind: "records",
      records: [{ flags: 0, tag: "issue", value: "café.example" }],
    });
  });

  it("follows a CNAME: the target's CAA records are the name's", async () => {
    const server = await start({
      "www.contoso.com": [{ type: "CNAME", target: "edge.cdn.net" }],
      "edge.cdn.net": [caa(0, "issue", "digicert.com")],
      "api.contoso.com": [{ type: "CNAME", target: "plain.cdn.net" }],
      "plain.cdn.net": [{ type: "A", address: "192.0.2.1" }],
    });
    const lookups = lookupsFor(server);
    expect(await lookups.caa("www.contoso.com")).toEqual({
      kind: "records",
      records: [{ flags: 0, tag: "issue", value: "digicert.com" }],
    });
    // An alias to a name without CAA: c-ares reports an empty list, which is an empty set.
    expect(await lookups.caa("api.contoso.com")).toEqual({ kind: "none" });
  });

  it("NXDOMAIN and NODATA are both an empty set", async () => {
    const server = await start({ "contoso.com": [{ type: "NS", host: "ns1.example" }] });
    const lookups = lookupsFor(server);
    expect(await lookups.caa("missing.contoso.com")).toEqual({ kind: "none" });
    expect(await lookups.caa("contoso.com")).toEqual({ kind: "none" });
  });

  it("a name written with its trailing dot is the same name, asked once", async () => {
    const server = await start({ "contoso.com": [caa(0, "issue", "a.example")] });
    await lookupsFor(server).caa("contoso.com.");
    expect(server.queries).toEqual([{ name: "contoso.com", type: "CAA", transport: "udp" }]);
  });

  it("keeps MAX_DNS_RECORDS records; one more makes the answer unknown, not a partial set", async () => {
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => caa(0, "issue", `ca${i}.example`));
    const server = await start({ "fifty.test": many(MAX_DNS_RECORDS), "more.test": many(51) });
    const lookups = lookupsFor(server);
    const fifty = await lookups.caa("fifty.test");
    expect(fifty.kind === "records" && fifty.records.length).toBe(MAX_DNS_RECORDS);
    expect(expectUnknown(await lookups.caa("more.test"))).toContain("51 records, more than");
  });

  it("cuts a 10 kB value (sent over TCP) to MAX_CAA_VALUE characters", async () => {
    const server = await start({
      "big.test": [caa(0, "issue", `a.example;${"x".repeat(10_000)}`)],
    });
    const answer = await lookupsFor(server).caa("big.test");
    expect(answer.kind === "records" && answer.records[0]?.value.length).toBe(MAX_CAA_VALUE);
    expect(answer.kind === "records" && answer.records[0]?.value.startsWith("a.example;")).toBe(
      true,
    );
  });

  it("a record Node cannot give whole makes the set unknown: tag `critical`, tag `__proto__`, an empty value", async () => {
    const server = await start({
      "critical.test": [caa(128, "critical", "x"), caa(0, "issue", "letsencrypt.org")],
      "proto.test": [caa(128, "__proto__", "x")],
      "empty.test": [caa(0, "issue", "")],
      "type.test": [caa(0, "type", "x")],
    });
    const lookups = lookupsFor(server);
    expect(expectUnknown(await lookups.caa("critical.test"))).toContain("hides its flags");
    expect(expectUnknown(await lookups.caa("proto.test"))).toContain("tag could not be read");
    expect(expectUnknown(await lookups.caa("empty.test"))).toContain("EBADRESP");
    // A tag named `type` (Node 24 names each record's type `type: "CAA"`, and the tag's value
    // wins): read whole on every Node.
    expect(await lookups.caa("type.test")).toEqual({
      kind: "records",
      records: [{ flags: 0, tag: "type", value: "x" }],
    });
  });
});

describe("dnsLookups: NS", () => {
  it("reads NS records as host names", async () => {
    const server = await start({
      "contoso.com": [
        { type: "NS", host: "ns1-01.azure-dns.com." },
        { type: "NS", host: "NS2-01.azure-dns.net" },
      ],
    });
    expect(await lookupsFor(server).ns("contoso.com")).toEqual({
      kind: "records",
      records: ["ns1-01.azure-dns.com", "NS2-01.azure-dns.net"],
    });
  });

  it("an unknown zone is an empty set", async () => {
    const server = await start();
    expect(await lookupsFor(server).ns("contoso.com")).toEqual({ kind: "none" });
  });
});

describe("dnsLookups: no decision", () => {
  it("a silent server is unknown within the timeout (not the resolver's own ~20 s)", async () => {
    const server = await start({ "contoso.com": [caa(0, "issue", "a.example")] });
    server.mode("*", "silent");
    const started = performance.now();
    const detail = expectUnknown(await lookupsFor(server, 300).caa("contoso.com"));
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(5_300);
    expect(detail).toBe(
      `DNS CAA query for contoso.com via ${server.address}: no answer within 300 ms`,
    );
  });

  it("SERVFAIL is unknown", async () => {
    const server = await start({ "contoso.com": [{ type: "NS", host: "a.example" }] });
    server.mode("contoso.com", "servfail");
    expect(expectUnknown(await lookupsFor(server).ns("contoso.com"))).toContain(
      "the server answered SERVFAIL",
    );
  });

  it("a server that is gone is unknown, within the timeout", async () => {
    const server = await start();
    await server.stop();
    servers.length = 0;
    const started = performance.now();
    expectUnknown(await lookupsFor(server, 500).caa("contoso.com"));
    expect(performance.now() - started).toBeLessThan(5_500);
  });

  it("a second server is asked when the first is silent, within the one budget", async () => {
    const silent = await start();
    silent.mode("*", "silent");
    const answering = await start({ "contoso.com": [{ type: "NS", host: "ns.example" }] });
    const lookups = dnsLookups({
      servers: [
        { host: silent.host, port: silent.port },
        { host: answering.host, port: answering.port },
      ],
      // Half of it for each server: room for a loaded machine (the full suite on 2 cores).
      timeoutMs: 4_000,
    });
    expect(await lookups.ns("contoso.com")).toEqual({ kind: "records", records: ["ns.example"] });
    expect(silent.queries.length).toBeGreaterThan(0);
  });

  it("an abort ends the lookup at once as unknown; an aborted signal asks nothing", async () => {
    const server = await start();
    server.mode("*", "silent");
    const lookups = lookupsFor(server, 10_000);
    const controller = new AbortController();
    const started = performance.now();
    const pending = lookups.caa("contoso.com", controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect(expectUnknown(await pending)).toContain("aborted");
    expect(performance.now() - started).toBeLessThan(5_000);
    const asked = server.queries.length;
    expect(expectUnknown(await lookups.ns("contoso.com", AbortSignal.abort()))).toContain(
      "aborted",
    );
    expect(server.queries.length).toBe(asked);
  });

  it("a server entry that is not an IP address is unknown, naming it", async () => {
    const lookups = dnsLookups({ servers: [{ host: "dns.example", port: 53 }], timeoutMs: 500 });
    expect(expectUnknown(await lookups.caa("contoso.com"))).toContain("not a DNS server address");
  });

  it("a hostile name (control characters, 10 kB) comes back escaped and bounded", async () => {
    const server = await start();
    const name = `evil\u001b]0;owned\u0007\n${"a".repeat(10_000)}.test`;
    const detail = expectUnknown(await lookupsFor(server).caa(name));
    expect(detail).not.toContain("\u001b");
    expect(detail).toContain("evil\\u{1b}]0;owned\\u{07}\\u{0a}");
  });
});

describe("dnsLookups: servers", () => {
  it("writes IPv6 servers in brackets", () => {
    expect(serverAddress({ host: "::1", port: 5353 })).toBe("[::1]:5353");
    expect(serverAddress({ host: "127.0.0.1", port: 53 })).toBe("127.0.0.1:53");
  });

  it("asks an IPv6 server ([::1]:port) when this host has IPv6 loopback", async () => {
    let server: SimDnsServer;
    try {
      server = await start({ "contoso.com": [{ type: "NS", host: "ns.example" }] }, "::1");
    } catch (error) {
      // Detected, not skipped: without IPv6 loopback there is no server to ask.
      expect((error as NodeJS.ErrnoException).code).toMatch(/EADDRNOTAVAIL|EAFNOSUPPORT/);
      return;
    }
    expect(await lookupsFor(server).ns("contoso.com")).toEqual({
      kind: "records",
      records: ["ns.example"],
    });
  });

  it("with no servers configured, the system's resolvers are asked, still within the timeout", async () => {
    const started = performance.now();
    const answer = await dnsLookups({ servers: [], timeoutMs: 500 }).caa("certsched.invalid");
    expect(["none", "unknown"]).toContain(answer.kind);
    expect(performance.now() - started).toBeLessThan(5_500);
  });
});
