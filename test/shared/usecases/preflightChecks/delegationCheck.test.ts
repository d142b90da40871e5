import { afterEach, describe, expect, it } from "vitest";
import { MAX_CHECK_DETAIL } from "../../../../shared/core/preflight/preflight.js";
import { delegationCheck } from "../../../../shared/usecases/preflightChecks/delegationCheck.js";
import type { SimDnsRecord, SimDnsServer } from "../../../../sim/index.js";
import { dnsContext, dnsServerWith, subjectFor } from "../../../support/preflightDns.js";

/** The `dns-delegation` check through the real DNS adapter and the simulator's DNS server. */

const servers: SimDnsServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

const AZURE = [
  "ns1-01.azure-dns.com.",
  "ns2-01.azure-dns.net.",
  "ns3-01.azure-dns.org.",
  "ns4-01.azure-dns.info.",
];
const ns = (...hosts: string[]): SimDnsRecord[] => hosts.map((host) => ({ type: "NS", host }));

async function check(
  records: Record<string, SimDnsRecord[]>,
  nameServers: readonly string[] = AZURE,
  options: Parameters<typeof dnsContext>[1] = {},
  setUp: (server: SimDnsServer) => void = () => {},
) {
  const server = await dnsServerWith(records);
  servers.push(server);
  setUp(server);
  const outcome = await delegationCheck(
    subjectFor("www.contoso.com"),
    dnsContext(server, options),
    {
      name: "contoso.com",
      nameServers,
    },
  );
  return { ...outcome.check, asked: server.queries.map((q) => `${q.type} ${q.name}`) };
}

const AZURE_LIST =
  "ns1-01.azure-dns.com, ns2-01.azure-dns.net, ns3-01.azure-dns.org, ns4-01.azure-dns.info";

describe("delegationCheck", () => {
  it("the public NS are the zone's name servers (in another order, case and trailing dot): pass", async () => {
    const result = await check({
      "contoso.com": ns(
        "NS4-01.Azure-DNS.info",
        "ns3-01.azure-dns.org",
        "ns2-01.azure-dns.net",
        "ns1-01.azure-dns.com",
      ),
    });
    expect(result).toEqual({
      check: "dns-delegation",
      status: "pass",
      detail: `public NS of contoso.com are the Azure DNS zone's: ${AZURE_LIST}`,
      asked: ["NS contoso.com"],
    });
  });

  it("other name servers: fail dns-not-delegated, naming both sets", async () => {
    const result = await check({
      "contoso.com": ns("ns1.registrar.example", "ns2.registrar.example"),
    });
    expect(result).toMatchObject({
      status: "fail",
      reason: "dns-not-delegated",
      detail: `public NS of contoso.com: ns1.registrar.example, ns2.registrar.example; the Azure DNS zone's: ${AZURE_LIST}`,
    });
  });

  it("a subset (two of the four) is not the same set: fail", async () => {
    const result = await check({
      "contoso.com": ns("ns1-01.azure-dns.com", "ns2-01.azure-dns.net"),
    });
    expect(result).toMatchObject({ status: "fail", reason: "dns-not-delegated" });
  });

  it("one more name server than the zone's is not the same set either", async () => {
    const result = await check({ "contoso.com": ns(...AZURE, "ns.other.example") });
    expect(result).toMatchObject({ status: "fail", reason: "dns-not-delegated" });
  });

  it("no public NS at all (NXDOMAIN): fail, naming the zone's name servers", async () => {
    expect(await check({})).toMatchObject({
      status: "fail",
      reason: "dns-not-delegated",
      detail: `no public NS records for contoso.com; the Azure DNS zone's name servers: ${AZURE_LIST}`,
    });
  });

  it("a zone without name servers in ARM is delegated to nobody: fail, saying none", async () => {
    expect(await check({ "contoso.com": ns(...AZURE) }, [])).toMatchObject({
      status: "fail",
      detail: `public NS of contoso.com: ${AZURE_LIST}; the Azure DNS zone's: none`,
    });
    expect(await check({}, [])).toMatchObject({
      status: "fail",
      detail: "no public NS records for contoso.com; the Azure DNS zone's name servers: none",
    });
  });

  it("a timeout is unknown within the timeout", async () => {
    const started = performance.now();
    const result = await check({ "contoso.com": ns(...AZURE) }, AZURE, { timeoutMs: 300 }, (s) =>
      s.mode("*", "silent"),
    );
    expect(performance.now() - started).toBeLessThan(1_300);
    expect(result.status).toBe("unknown");
    expect(result.reason).toBeUndefined();
    expect(result.detail).toMatch(
      /^NS of contoso\.com could not be read: DNS NS query for contoso\.com via 127\.0\.0\.1:\d+: no answer within 300 ms$/,
    );
  });

  it("SERVFAIL is unknown", async () => {
    const result = await check({ "contoso.com": ns(...AZURE) }, AZURE, {}, (s) =>
      s.mode("contoso.com", "servfail"),
    );
    expect(result.status).toBe("unknown");
    expect(result.detail).toContain("SERVFAIL");
  });

  it("hostile name servers from ARM (control characters, 10 kB) are escaped and bounded", async () => {
    const hostile = `ns.evil\u001b[2J\n${"x".repeat(10_000)}`;
    const result = await check({ "contoso.com": ns(...AZURE) }, [hostile]);
    expect(result.status).toBe("fail");
    expect(result.detail.length).toBeLessThanOrEqual(MAX_CHECK_DETAIL);
    expect(result.detail).toContain("ns.evil\\u{1b}[2j\\u{0a}xxx");
    expect([...result.detail].some((c) => (c.codePointAt(0) ?? 0) < 0x20)).toBe(false);
  });

  it("many name servers are counted, not all listed", async () => {
    const many = Array.from({ length: 8 }, (_, i) => `ns${i}.example`);
    const result = await check({ "contoso.com": ns(...many) });
    expect(result.detail).toContain(
      "ns0.example, ns1.example, ns2.example, ns3.example, ns4.example and 3 more;",
    );
  });
});
