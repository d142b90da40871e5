import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import {
  type CertSpotterSimulator,
  HOSTILE_ISSUER,
  HOSTILE_NAMES,
  type IssuanceSeed,
  startCertSpotter,
} from "../../../sim/index.js";
import { fakeClock } from "../../support/clock.js";

const NOW = "2026-06-01T12:00:00Z";
const DAY = 86_400_000;

function seed(names: string[]): IssuanceSeed {
  return {
    tbsSha256: "a".repeat(64),
    certSha256: "b".repeat(64),
    pubkeySha256: "c".repeat(64),
    notBefore: new Date(Date.parse(NOW) - DAY),
    notAfter: new Date(Date.parse(NOW) + 80 * DAY),
    dnsNames: names,
    issuer: {
      friendly_name: "Let's Encrypt",
      website: null,
      caa_domains: [],
      operator: null,
      pubkey_sha256: "d".repeat(64),
      name: "CN=R11",
    },
  };
}

let sim: CertSpotterSimulator;
afterEach(async () => {
  await sim?.close();
});

async function start() {
  sim = await startCertSpotter({ now: fakeClock(NOW).now, pageSize: 2 });
  sim.add(seed(["a.example.com"]), seed(["b.example.com"]), seed(["c.example.com"]));
  return sim;
}

interface Item {
  readonly id: string;
  readonly dns_names?: string[];
  readonly issuer?: { friendly_name: string };
  readonly not_before: string;
  readonly not_after: string;
}

async function get(query = "domain=example.com&include_subdomains=true&expand=dns_names") {
  const res = await request(`${sim.url}/v1/issuances?${query}`);
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}
const items = (text: string) => JSON.parse(text) as Item[];

describe("the simulated Cert Spotter's hostile answers", () => {
  it("serves a fault once with once: true, then answers as before; without it, until cleared", async () => {
    await start();
    sim.setFault({ kind: "server-error", once: true });
    expect((await get()).status).toBe(500);
    expect((await get()).status).toBe(200);
    sim.setFault({ kind: "server-error" });
    expect((await get()).status).toBe(500);
    expect((await get()).status).toBe(500);
    sim.setFault(undefined);
    expect((await get()).status).toBe(200);
    expect(sim.requests.map((r) => r.fault)).toEqual([
      "server-error",
      undefined,
      "server-error",
      "server-error",
      undefined,
    ]);
  });

  it("500: a JSON error object", async () => {
    await start();
    sim.setFault({ kind: "server-error", once: true });
    const answer = await get();
    expect(JSON.parse(answer.text)).toMatchObject({ code: "internal_error" });
  });

  it("a body of N MiB: a valid JSON array of issuances, at least that large", async () => {
    await start();
    sim.setFault({ kind: "huge-body", megabytes: 3, once: true });
    const answer = await get();
    expect(answer.status).toBe(200);
    expect(answer.text.length).toBeGreaterThanOrEqual(3 * 1024 * 1024);
    expect(answer.text.length).toBeLessThan(4 * 1024 * 1024);
    const list = items(answer.text);
    expect(list.length).toBeGreaterThan(1000);
    expect(new Set(list.map((i) => i.id)).size).toBe(list.length);
    expect(list[0]?.dns_names?.[0]).toMatch(/\.example\.com$/);
  });

  it("a body of 100 MiB stops when the client hangs up, and the simulator answers the next request", async () => {
    await start();
    sim.setFault({ kind: "huge-body", megabytes: 100, once: true });
    const res = await request(`${sim.url}/v1/issuances?domain=example.com`);
    let read = 0;
    for await (const chunk of res.body) {
      read += (chunk as Buffer).length;
      if (read > 256 * 1024) break;
    }
    res.body.destroy();
    expect(read).toBeGreaterThan(256 * 1024);
    expect((await get()).status).toBe(200);
  });

  it("a page of N issuances, whatever the page size", async () => {
    await start();
    sim.setFault({ kind: "huge-page", count: 5000, once: true });
    const list = items((await get()).text);
    expect(list).toHaveLength(5000);
    expect(new Set(list.map((i) => i.id)).size).toBe(5000);
    // The ids it took are not given out again.
    const [added] = sim.add(seed(["d.example.com"]));
    expect(BigInt(added?.id ?? 0)).toBeGreaterThan(BigInt(list.at(-1)?.id ?? 0));
  });

  it("an issuance with N DNS names", async () => {
    await start();
    sim.setFault({ kind: "many-names", count: 10_000, once: true });
    const list = items((await get()).text);
    expect(list).toHaveLength(1);
    expect(list[0]?.dns_names).toHaveLength(10_000);
  });

  it("names and an issuer with control and bidi characters and HTML", async () => {
    await start();
    sim.setFault({ kind: "hostile-names", once: true });
    const list = items((await get("domain=example.com&expand=dns_names&expand=issuer")).text);
    expect(list[0]?.dns_names).toEqual(HOSTILE_NAMES);
    expect(list[0]?.issuer?.friendly_name).toBe(HOSTILE_ISSUER);
    const all = [...HOSTILE_NAMES, HOSTILE_ISSUER].join("");
    expect([...all].some((c) => (c.codePointAt(0) ?? 0) < 0x20)).toBe(true);
    expect(all).toMatch(/\u202e/);
    expect(all).toMatch(/<script>/);
  });

  it("dates in the year 9999 and before 1970", async () => {
    await start();
    sim.setFault({ kind: "extreme-dates", once: true });
    const list = items((await get()).text);
    expect(list.map((i) => [i.not_before, i.not_after])).toEqual([
      ["1960-01-01T00:00:00Z", "9999-12-31T23:59:59Z"],
      ["9999-01-01T00:00:00Z", "9999-12-31T23:59:59Z"],
    ]);
  });

  it("ids that go backwards, below the after asked", async () => {
    await start();
    sim.setFault({ kind: "ids-backwards", once: true });
    const list = items((await get("domain=example.com&after=9218060293")).text);
    expect(list.map((i) => i.id)).toEqual(["9218060292", "9218060291", "9218060290"]);
  });

  it("a page that repeats forever: the first page whatever after says", async () => {
    await start();
    sim.setFault({ kind: "endless-paging" });
    const first = items((await get()).text).map((i) => i.id);
    expect(first).toEqual(["9218060291", "9218060292"]);
    let after = first.at(-1) ?? "";
    for (let i = 0; i < 5; i++) {
      const page = items(
        (await get(`domain=example.com&include_subdomains=true&after=${after}`)).text,
      );
      expect(page.map((x) => x.id)).toEqual(first);
      after = page.at(-1)?.id ?? "";
    }
  });

  it("200 with an HTML body", async () => {
    await start();
    sim.setFault({ kind: "html-body", once: true });
    const answer = await get();
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toMatch(/^text\/html/);
    expect(() => JSON.parse(answer.text)).toThrow();
  });

  it("429 with the Retry-After given: a huge number of seconds, or an HTTP date", async () => {
    await start();
    for (const retryAfter of ["999999999", "Wed, 21 Oct 2026 07:28:00 GMT"]) {
      sim.setFault({ kind: "rate-limited", retryAfter, once: true });
      const answer = await get();
      expect(answer.status).toBe(429);
      expect(answer.headers["retry-after"]).toBe(retryAfter);
      expect(JSON.parse(answer.text)).toMatchObject({ code: "rate_limited" });
    }
  });

  it("302 to another host, by default one that does not exist", async () => {
    await start();
    sim.setFault({ kind: "redirect", once: true });
    const answer = await get("domain=example.com");
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe(
      "http://elsewhere.invalid/v1/issuances?domain=example.com",
    );
    sim.setFault({ kind: "redirect", location: "http://127.0.0.2:9/steal", once: true });
    expect((await get()).headers.location).toBe("http://127.0.0.2:9/steal");
  });

  it("a connection reset without an answer", async () => {
    await start();
    sim.setFault({ kind: "reset", once: true });
    await expect(get()).rejects.toThrow();
    expect((await get()).status).toBe(200);
  });
});
