import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import {
  type CertSpotterOptions,
  type CertSpotterSimulator,
  type IssuanceSeed,
  startCertSpotter,
} from "../../../sim/index.js";
import { fakeClock } from "../../support/clock.js";

const NOW = "2026-06-01T12:00:00Z";
const DAY = 86_400_000;
const hex = (c: string) => c.repeat(64);

function seed(names: string[], overrides: Partial<IssuanceSeed> = {}): IssuanceSeed {
  return {
    tbsSha256: hex("a"),
    certSha256: hex("b"),
    pubkeySha256: hex("c"),
    notBefore: new Date(Date.parse(NOW) - 10 * DAY),
    notAfter: new Date(Date.parse(NOW) + 80 * DAY),
    dnsNames: names,
    issuer: {
      friendly_name: "Let's Encrypt",
      website: "https://letsencrypt.org/",
      caa_domains: ["letsencrypt.org"],
      operator: { name: "ISRG", website: "https://www.abetterinternet.org/" },
      pubkey_sha256: hex("d"),
      name: "C=US, O=Let's Encrypt, CN=R11",
    },
    ...overrides,
  };
}

let sim: CertSpotterSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(options: CertSpotterOptions = {}) {
  const clock = fakeClock(NOW);
  sim = await startCertSpotter({ now: clock.now, ...options });
  return { sim, clock };
}

type Json = Record<string, unknown> & { code?: string; message?: string; id?: string };

async function get(query: string, headers: Record<string, string> = {}) {
  const res = await request(`${sim?.url}/v1/issuances?${query}`, { headers });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, json: JSON.parse(text) as Json[] & Json };
}

describe("the simulator's Cert Spotter", () => {
  it("pages by after, in discovery order, with increasing decimal ids, until an empty page", async () => {
    const { sim } = await start({ pageSize: 2 });
    const added = sim.add(
      seed(["a.example.com"]),
      seed(["b.example.com"]),
      seed(["example.com"]),
      seed(["c.example.com"]),
      seed(["other.example.org"]),
    );
    expect(added.map((i) => i.id)).toEqual([
      "9218060291",
      "9218060292",
      "9218060293",
      "9218060294",
      "9218060295",
    ]);
    const pages: string[][] = [];
    let after = "";
    for (;;) {
      const page = await get(`domain=example.com&include_subdomains=true&after=${after}`);
      expect(page.status).toBe(200);
      pages.push(page.json.map((i) => i.id ?? ""));
      if (page.json.length === 0) break;
      after = page.json.at(-1)?.id ?? "";
    }
    expect(pages).toEqual([["9218060291", "9218060292"], ["9218060293", "9218060294"], []]);
    // An issuance discovered later comes after the last id seen.
    sim.add(seed(["d.example.com"]));
    const later = await get(`domain=example.com&include_subdomains=true&after=${after}`);
    expect(later.json.map((i) => i.id)).toEqual(["9218060296"]);
    // A short page does not end the list: only [] does (a page size of 100 by default).
    expect(sim.requests.map((r) => r.query.after)).toEqual([
      [""],
      ["9218060292"],
      ["9218060294"],
      ["9218060294"],
    ]);
  });

  it("answers only the name itself without include_subdomains, every depth with it, and a matching wildcard with match_wildcards", async () => {
    const { sim } = await start();
    sim.add(
      seed(["example.com"]),
      seed(["www.example.com"]),
      seed(["deep.er.example.com"]),
      seed(["*.example.com"]),
      seed(["notexample.com"]),
      seed(["WWW.Example.COM"]),
    );
    const ids = async (q: string) => (await get(q)).json.map((i) => Number(i.id) - 9218060290);
    expect(await ids("domain=example.com")).toEqual([1]);
    expect(await ids("domain=www.example.com")).toEqual([2, 6]);
    expect(await ids("domain=www.example.com.")).toEqual([2, 6]);
    expect(await ids("domain=example.com&include_subdomains=true")).toEqual([1, 2, 3, 4, 6]);
    expect(await ids("domain=www.example.com&match_wildcards=true")).toEqual([2, 4, 6]);
    expect(await ids("domain=example.com&match_wildcards=true")).toEqual([1]);
    expect(await ids("domain=a.b.example.com&match_wildcards=true")).toEqual([]);
    expect(await ids("domain=example.com&domain=notexample.com")).toEqual([1, 5]);
  });

  it("leaves out dns_names, issuer, revocation, problem_reporting and cert_der unless expanded; revoked is always there", async () => {
    const { sim } = await start();
    sim.add(
      seed(["www.example.com"], {
        problemReporting: "Send email to\nrevoke@example.net",
        certDer: Buffer.from([0x30, 0x03, 0x02, 0x01, 0x01]),
      }),
      seed(["www.example.com"], {
        revocation: { time: new Date("2026-05-30T10:00:00.500Z"), reason: 1 },
      }),
    );
    const bare = await get("domain=www.example.com");
    expect(bare.json[0]).toEqual({
      id: "9218060291",
      tbs_sha256: hex("a"),
      cert_sha256: hex("b"),
      pubkey_sha256: hex("c"),
      not_before: "2026-05-22T12:00:00Z",
      not_after: "2026-08-20T12:00:00Z",
      revoked: false,
    });
    expect(bare.json[1]?.revoked).toBe(true);
    const all = await get(
      "domain=www.example.com&expand=dns_names&expand=issuer&expand=revocation&expand=problem_reporting&expand=cert_der",
    );
    expect(all.json[0]).toMatchObject({
      dns_names: ["www.example.com"],
      issuer: { friendly_name: "Let's Encrypt", caa_domains: ["letsencrypt.org"] },
      revocation: { time: null, reason: null, checked_at: "2026-06-01T12:00:00Z" },
      problem_reporting: "Send email to\nrevoke@example.net",
      cert_der: "MAMCAQE=",
    });
    expect(all.json[1]?.revocation).toEqual({
      time: "2026-05-30T10:00:00Z",
      reason: 1,
      checked_at: "2026-06-01T12:00:00Z",
    });
    const names = await get("domain=www.example.com&expand=dns_names");
    expect(Object.keys(names.json[0] ?? {})).toContain("dns_names");
    expect(Object.keys(names.json[0] ?? {})).not.toContain("issuer");
    // A sub-field of issuer (SSLMate's own client expands issuer.operator) brings the issuer.
    const operator = await get("domain=www.example.com&expand=issuer.operator");
    expect(operator.json[0]?.issuer).toMatchObject({ operator: { name: "ISRG" } });
  });

  it("answers unexpired issuances only, unless expired=true", async () => {
    const { sim, clock } = await start();
    sim.add(
      seed(["example.com"], { notAfter: new Date(Date.parse(NOW) + DAY) }),
      seed(["example.com"]),
    );
    expect((await get("domain=example.com")).json).toHaveLength(2);
    clock.advance(2 * DAY);
    expect((await get("domain=example.com")).json.map((i) => i.id)).toEqual(["9218060292"]);
    expect((await get("domain=example.com&expired=true")).json).toHaveLength(2);
  });

  it("refuses a missing domain, a public suffix, more than ten domains and a malformed after with 400 and an error object", async () => {
    await start();
    for (const query of [
      "",
      "domain=",
      "domain=com",
      "domain=co.uk",
      Array.from({ length: 11 }, (_, i) => `domain=d${i}.example.com`).join("&"),
      "domain=example.com&after=abc",
      "domain=exa%20mple.com",
      "domain=example.com&include_subdomains=yes",
    ]) {
      const answer = await get(query);
      expect(answer.status, query).toBe(400);
      expect(answer.json.code, query).toBe("bad_request");
      expect(typeof answer.json.message).toBe("string");
    }
    const ten = Array.from({ length: 10 }, (_, i) => `domain=d${i}.example.com`).join("&");
    expect((await get(ten)).status).toBe(200);
  });

  it("with an API key, takes Bearer or Basic with the key as user name, refuses the rest with 401 unauthorized, and never keeps the key", async () => {
    const key = "ct-key-5e1f0a9b7c3d";
    await start({ apiKey: key, revokedKeys: ["ct-key-revoked-0001"] });
    const basic = (s: string) => `Basic ${Buffer.from(s).toString("base64")}`;
    const cases: [Record<string, string>, number][] = [
      [{ authorization: `Bearer ${key}` }, 200],
      [{ authorization: basic(`${key}:`) }, 200],
      [{}, 401],
      [{ authorization: "Bearer wrong" }, 401],
      [{ authorization: basic(`${key}:password`) }, 401],
      [{ authorization: basic(key) }, 401],
      [{ authorization: "Bearer ct-key-revoked-0001" }, 401],
    ];
    for (const [headers, status] of cases) {
      const answer = await get("domain=example.com", headers);
      expect(answer.status, JSON.stringify(headers)).toBe(status);
      if (status === 401) expect(answer.json.code).toBe("unauthorized");
    }
    expect(
      (await get("domain=example.com", { authorization: "Bearer ct-key-revoked-0001" })).json
        .message,
    ).toMatch(/revoked/);
    expect(sim?.requests.map((r) => r.hadAuthorization)).toEqual([
      true,
      true,
      false,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(sim?.requests.map((r) => r.status)).toEqual([200, 200, 401, 401, 401, 401, 401, 401]);
    expect(JSON.stringify(sim?.requests)).not.toContain(key);
    expect(JSON.stringify(sim?.requests)).not.toContain("revoked-0001");
  });

  it("without an API key answers anyone, but still refuses a revoked key", async () => {
    await start({ revokedKeys: ["old-key"] });
    expect((await get("domain=example.com")).status).toBe(200);
    expect((await get("domain=example.com", { authorization: "Bearer other" })).status).toBe(200);
    expect((await get("domain=example.com", { authorization: "Bearer old-key" })).status).toBe(401);
  });

  it("answers 429 rate_limited with Retry-After in seconds once the hourly allowance is used, and again when the hour has passed", async () => {
    const { clock } = await start({ limitPerHour: 3 });
    for (let i = 0; i < 3; i++) {
      expect((await get("domain=example.com")).status).toBe(200);
      clock.advance(10 * 60_000);
    }
    const limited = await get("domain=example.com");
    expect(limited.status).toBe(429);
    expect(limited.json.code).toBe("rate_limited");
    // The first request was 30 minutes ago: room again in 30 minutes.
    expect(limited.headers["retry-after"]).toBe("1800");
    clock.advance(1800 * 1000);
    expect((await get("domain=example.com")).status).toBe(200);
    expect((await get("domain=example.com")).status).toBe(429);
  });

  it("answers 404 for another path and 405 for another method", async () => {
    await start();
    const other = await request(`${sim?.url}/v1/other`);
    expect(other.statusCode).toBe(404);
    await other.body.text();
    const post = await request(`${sim?.url}/v1/issuances?domain=example.com`, { method: "POST" });
    expect(post.statusCode).toBe(405);
    await post.body.text();
  });
});
