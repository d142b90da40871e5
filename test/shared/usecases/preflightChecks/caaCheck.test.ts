import { afterEach, describe, expect, it } from "vitest";
import { MAX_CHECK_DETAIL } from "../../../../shared/core/preflight/preflight.js";
import { caaCheck } from "../../../../shared/usecases/preflightChecks/caaCheck.js";
import type { SimDnsRecord, SimDnsServer } from "../../../../sim/index.js";
import { dnsContext, dnsServerWith, subjectFor } from "../../../support/preflightDns.js";

/** The `caa` check through the real DNS adapter and the simulator's DNS server. */

const servers: SimDnsServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function serve(records: Record<string, SimDnsRecord[]>) {
  const server = await dnsServerWith(records);
  servers.push(server);
  return server;
}

const issue = (value: string, tag = "issue", flags = 0): SimDnsRecord => ({
  type: "CAA",
  flags,
  tag,
  value,
});

async function check(
  server: SimDnsServer,
  domain: string,
  options: Parameters<typeof dnsContext>[1] = {},
) {
  const outcome = await caaCheck(subjectFor(domain), dnsContext(server, options));
  return outcome.check;
}

const asked = (server: SimDnsServer) => server.queries.map((q) => q.name);

describe("caaCheck", () => {
  it("no CAA record up to the top-level domain: pass, after asking every name up to it", async () => {
    const server = await serve({});
    expect(await check(server, "www.contoso.com")).toEqual({
      check: "caa",
      status: "pass",
      detail: "no CAA record at or above www.contoso.com: any CA may issue",
    });
    expect(asked(server)).toEqual(["www.contoso.com", "contoso.com", "com"]);
  });

  it("a record at the parent forbidding the CA: fail caa-forbids, the climb stops there", async () => {
    const server = await serve({ "contoso.com": [issue("digicert.com")] });
    expect(await check(server, "www.contoso.com")).toEqual({
      check: "caa",
      status: "fail",
      reason: "caa-forbids",
      detail: "CAA at contoso.com allows only digicert.com (issue); letsencrypt.org is not allowed",
    });
    expect(asked(server)).toEqual(["www.contoso.com", "contoso.com"]);
  });

  it("allowed: pass naming the record's issuer", async () => {
    const server = await serve({ "contoso.com": [issue("LetsEncrypt.org; accounturi=x")] });
    expect(await check(server, "contoso.com")).toEqual({
      check: "caa",
      status: "pass",
      detail: "CAA at contoso.com allows letsencrypt.org (issue)",
    });
  });

  it("the closest set wins: a name's own records over its parent's", async () => {
    const server = await serve({
      "www.contoso.com": [issue("letsencrypt.org")],
      "contoso.com": [issue(";")],
    });
    expect((await check(server, "www.contoso.com")).status).toBe("pass");
    expect(asked(server)).toEqual(["www.contoso.com"]);
  });

  it("a wildcard starts at its parent and is decided by issuewild when there is one", async () => {
    const server = await serve({
      "contoso.com": [issue("letsencrypt.org"), issue("digicert.com", "issuewild")],
    });
    expect(await check(server, "*.contoso.com")).toEqual({
      check: "caa",
      status: "fail",
      reason: "caa-forbids",
      detail:
        "CAA at contoso.com allows only digicert.com (issuewild); letsencrypt.org is not allowed",
    });
    expect(asked(server)).toEqual(["contoso.com"]);
    // The same set lets the CA issue for a name that is not a wildcard.
    expect((await check(server, "www.contoso.com")).status).toBe("pass");
  });

  it("a CNAME on the way: the alias target's set is the name's set", async () => {
    const server = await serve({
      "www.contoso.com": [{ type: "CNAME", target: "contoso.edge.cdn.net" }],
      "contoso.edge.cdn.net": [issue("digicert.com")],
      "contoso.com": [issue("letsencrypt.org")],
    });
    expect(await check(server, "www.contoso.com")).toMatchObject({
      status: "fail",
      detail:
        "CAA at www.contoso.com allows only digicert.com (issue); letsencrypt.org is not allowed",
    });
  });

  it("a CNAME to a name without CAA: the climb goes on from the alias's own parent", async () => {
    const server = await serve({
      "www.contoso.com": [{ type: "CNAME", target: "plain.cdn.net" }],
      "plain.cdn.net": [{ type: "A", address: "192.0.2.1" }],
      "contoso.com": [issue(";")],
    });
    expect(await check(server, "www.contoso.com")).toMatchObject({
      status: "fail",
      detail: 'CAA at contoso.com allows no CA (issue ";"); letsencrypt.org is not allowed',
    });
  });

  it("a critical tag certsched does not understand: fail, whatever the issue tags say", async () => {
    const server = await serve({
      "contoso.com": [issue("letsencrypt.org"), issue("x", "tbs", 128)],
    });
    expect(await check(server, "contoso.com")).toEqual({
      check: "caa",
      status: "fail",
      reason: "caa-forbids",
      detail:
        "CAA at contoso.com has a critical tag certsched does not understand (tbs); no CA may issue; letsencrypt.org is not allowed",
    });
  });

  it("several CA identifiers: any one allowed passes; none names them all", async () => {
    const server = await serve({ "contoso.com": [issue("digicert.com")] });
    const ids = ["letsencrypt.org", "digicert.com"];
    expect((await check(server, "contoso.com", { caIdentifiers: ids })).status).toBe("pass");
    expect((await check(server, "contoso.com", { caIdentifiers: ["a.ca", "b.ca"] })).detail).toBe(
      "CAA at contoso.com allows only digicert.com (issue); a.ca or b.ca are not allowed",
    );
  });

  it("a timeout is unknown, within the timeout, naming where", async () => {
    const server = await serve({ "contoso.com": [issue("digicert.com")] });
    server.mode("*", "silent");
    const started = performance.now();
    const result = await check(server, "contoso.com", { timeoutMs: 300 });
    expect(performance.now() - started).toBeLessThan(5_300);
    expect(result).toEqual({
      check: "caa",
      status: "unknown",
      detail: `CAA at contoso.com could not be read: DNS CAA query for contoso.com via ${server.address}: no answer within 300 ms`,
    });
  });

  it("an undecided name on the way is unknown, not the parent's answer", async () => {
    const server = await serve({ "contoso.com": [issue("letsencrypt.org")] });
    server.mode("www.contoso.com", "servfail");
    const result = await check(server, "www.contoso.com");
    expect(result.status).toBe("unknown");
    expect(result.detail).toContain("CAA at www.contoso.com could not be read");
    expect(result.detail).toContain("SERVFAIL");
    expect(asked(server)).toEqual(["www.contoso.com"]);
  });

  it("not a domain name: unknown, asking nothing", async () => {
    const server = await serve({});
    expect(await check(server, "a..b")).toEqual({
      check: "caa",
      status: "unknown",
      detail: "not a domain name: a..b",
    });
    expect(asked(server)).toEqual([]);
  });

  it("more issuers than a detail names are counted", async () => {
    const server = await serve({
      "contoso.com": ["a", "b", "c", "d", "e", "f", "g"].map((x) => issue(`${x}.example`)),
    });
    expect((await check(server, "contoso.com")).detail).toBe(
      "CAA at contoso.com allows only a.example, b.example, c.example, d.example, e.example and 2 more (issue); letsencrypt.org is not allowed",
    );
  });
});

describe("caaCheck: the detail from untrusted DNS values", () => {
  const hasControl = (text: string) =>
    [...text].some((c) => (c.codePointAt(0) ?? 0) < 0x20 || c.codePointAt(0) === 0x7f);

  it("a hostile value (control characters, 10 kB) is escaped and bounded; certsched's words stay", async () => {
    const hostile = `evil\u001b[2J\u0007\r\n${"x".repeat(10_000)}`;
    const server = await serve({ "contoso.com": [issue(hostile)] });
    const { status, detail } = await check(server, "contoso.com");
    expect(status).toBe("fail");
    expect(detail.length).toBeLessThanOrEqual(MAX_CHECK_DETAIL);
    expect(hasControl(detail)).toBe(false);
    expect(detail).toMatch(
      /^CAA at contoso\.com allows only evil\\u\{1b\}\[2j\\u\{07\}\\u\{0d\}\\u\{0a\}x+… \(issue\); letsencrypt\.org is not allowed$/,
    );
  });

  it("a tag with a control character is a record the resolver cannot read: unknown, escaped", async () => {
    const server = await serve({ "contoso.com": [issue("x", "evil\u001bx", 128)] });
    const result = await check(server, "contoso.com");
    expect(result.status).toBe("unknown");
    expect(hasControl(result.detail)).toBe(false);
  });

  /** Five issuers of lengths that make the whole detail `total` characters long. */
  function issuersForDetail(total: number): string[] {
    const fixed =
      "CAA at contoso.com allows only ".length +
      " (issue); letsencrypt.org is not allowed".length +
      ", ".length * 4;
    const room = total - fixed;
    const each = Math.floor(room / 5);
    const sizes = [each, each, each, each, room - 4 * each];
    return sizes.map((n, i) => `${String.fromCharCode(97 + i)}${"x".repeat(n - 9)}.example`);
  }

  it.each([
    [MAX_CHECK_DETAIL, false],
    [MAX_CHECK_DETAIL + 1, true],
  ])("a detail of %i characters is cut: %s (the note is kept whole)", async (total, cut) => {
    const issuers = issuersForDetail(total);
    const server = await serve({ "contoso.com": issuers.map((x) => issue(x)) });
    const { detail } = await check(server, "contoso.com");
    const whole = `CAA at contoso.com allows only ${issuers.join(", ")} (issue); letsencrypt.org is not allowed`;
    expect(whole.length).toBe(total);
    expect(detail.length).toBe(MAX_CHECK_DETAIL);
    if (cut) {
      expect(detail).toMatch(/…; letsencrypt\.org is not allowed$/);
    } else {
      expect(detail).toBe(whole);
    }
  });
});
