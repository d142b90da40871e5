import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeTls } from "../../../../shared/adapters/probes/tlsProbe.js";
import type { ProbeResult } from "../../../../shared/core/ports/probes.js";
import { parseConnectTo } from "../../../../shared/core/verification/connectTo.js";
import {
  type NamedEndpoint,
  parseEndpoint,
} from "../../../../shared/core/verification/endpoint.js";
import {
  type AcceptedRenewal,
  judge,
  type Verdict,
} from "../../../../shared/core/verification/judge.js";
import { countStatuses, needsAttention } from "../../../../shared/core/verification/targets.js";
import { verifyTargets } from "../../../../shared/usecases/verifyDomains.js";
import { type Issued, makeCa, makeLeaf } from "../../../support/certificates.js";
import { closedPort, type RecordingServer, startTlsServer } from "../../../support/tlsServers.js";
import { certificateWithUnreadableExpiry } from "../../../support/unreadableDates.js";

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** Whole seconds: X.509 keeps no milliseconds. */
const realNow = new Date(Math.floor(Date.now() / 1000) * 1000);
const at = (offsetMs: number) => new Date(realNow.getTime() + offsetMs);

const trusted = makeCa("certsched test root CA");
const unknown = makeCa("an unknown CA");
const CA = [...tls.rootCertificates, trusted.cert];
const SETTINGS = { connectTo: [], warnDays: 14, windowMs: 2 * HOUR, timeoutMs: 5_000 };

const servers: RecordingServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

function endpoint(text: string): NamedEndpoint {
  const parsed = parseEndpoint(text);
  if (typeof parsed === "string") throw new Error(parsed);
  return parsed;
}

/** Serves `issued` on loopback and probes it as `host`, through connect-to, over a real socket. */
async function observe(issued: Issued, host = "www.contoso.test"): Promise<ProbeResult> {
  const server = await startTlsServer(issued);
  servers.push(server);
  return probeTls(
    { host, port: 443 },
    { connectTo: parseConnectTo(`${host}:443:127.0.0.1:${server.port}`), timeoutMs: 5_000, ca: CA },
  );
}

function verdictAt(probe: ProbeResult, now: Date, renewal?: AcceptedRenewal): Verdict {
  return judge({ host: "www.contoso.test", port: 443 }, probe, {
    now,
    warnDays: 14,
    windowMs: 2 * HOUR,
    renewal,
  });
}

/** The leaf sent with its issuer, as a server that sends the whole chain. */
const withIssuer = (leaf: Issued, issuer: Issued): Issued => ({
  ...leaf,
  cert: leaf.cert + issuer.cert,
});

/** A certificate from the trusted CA for www.contoso.test that expires at `notAfter`. */
const good = (notAfter: Date, names = ["www.contoso.test"]) =>
  makeLeaf(trusted, { names, notBefore: at(-30 * DAY), notAfter });

describe("the verdict, from probes over real sockets", () => {
  // One certificate, probed once, judged at many moments: notAfter T, 30 days ahead.
  const T = at(30 * DAY);
  let served: ProbeResult;
  beforeAll(async () => {
    served = await observe(good(T));
  });

  it("is ok with more than the warning days left, with the fields the contract names", () => {
    const v = verdictAt(served, realNow);
    expect(v).toMatchObject({
      status: "ok",
      critical: false,
      servedNotAfter: T.toISOString(),
      daysLeft: 30,
      issuer: "CN=certsched test root CA",
      serial: "0A1B2C3D",
    });
    expect(v.servedNotAfter).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(v.thumbprint).toMatch(/^[0-9A-F]{64}$/);
    expect(v.detail).toBe("trusted, covers www.contoso.test, 30 days left");
  });

  // Pinned boundaries: 14 whole days left is ok, a millisecond less is expiring; 7 days left
  // is expiring, a millisecond less is critical. daysLeft is floor((notAfter - now) / 24 h).
  it.each([
    [14 * DAY, "ok", false, 14],
    [14 * DAY - 1, "expiring", false, 13],
    [7 * DAY, "expiring", false, 7],
    [7 * DAY - 1, "expiring", true, 6],
    [DAY, "expiring", true, 1],
    [0, "expiring", true, 0],
    [-1, "expired", false, -1],
    [-HOUR, "expired", false, -1],
    [-DAY - 1, "expired", false, -2],
  ])("with %i ms left: %s (critical %s), %i days left", (left, status, critical, daysLeft) => {
    const v = verdictAt(served, new Date(T.getTime() - left));
    expect(v).toMatchObject({ status, critical, daysLeft, servedNotAfter: T.toISOString() });
  });

  it("says why in words: the days, the setting, critical below 7", () => {
    expect(verdictAt(served, new Date(T.getTime() - 10 * DAY)).detail).toBe(
      `10 days left (expires ${T.toISOString()}), fewer than 14 (CERTSCHED_VERIFY_WARN_DAYS)`,
    );
    expect(verdictAt(served, new Date(T.getTime() - 3 * DAY)).detail).toBe(
      `critical: 3 days left (expires ${T.toISOString()}), below 7`,
    );
    expect(verdictAt(served, new Date(T.getTime() + HOUR)).detail).toBe(
      `expired at ${T.toISOString()}, 1 hour ago`,
    );
  });

  it("follows CERTSCHED_VERIFY_WARN_DAYS", () => {
    const now = new Date(T.getTime() - 20 * DAY);
    const v = judge({ host: "www.contoso.test", port: 443 }, served, {
      now,
      warnDays: 21,
      windowMs: HOUR,
    });
    expect(v.status).toBe("expiring");
    expect(
      judge({ host: "www.contoso.test", port: 443 }, served, { now, warnDays: 20, windowMs: HOUR })
        .status,
    ).toBe("ok");
  });

  describe("a renewal in flight (pending, then not-landed)", () => {
    const acceptedAt = at(0);
    // The window is 2 h: pending until a millisecond before, not-landed from its end on.
    it.each([
      [0, "pending"],
      [2 * HOUR - 1, "pending"],
      [2 * HOUR, "not-landed"],
      [3 * DAY, "not-landed"],
    ])("%i ms after the acceptance, the old certificate still served: %s", (since, status) => {
      const v = verdictAt(served, new Date(acceptedAt.getTime() + since), {
        acceptedAt,
        expiryAtRequest: T,
      });
      expect(v.status).toBe(status);
      expect(v.servedNotAfter).toBe(T.toISOString());
    });

    it("is pending, not expiring, even with few days left", () => {
      const now = new Date(T.getTime() - 3 * DAY);
      const v = verdictAt(served, now, {
        acceptedAt: new Date(now.getTime() - 10 * MINUTE),
        expiryAtRequest: T,
      });
      expect(v).toMatchObject({ status: "pending", critical: false, daysLeft: 3 });
      expect(v.detail).toContain("renewal accepted 10 minutes ago");
      expect(v.detail).toContain("CERTSCHED_VERIFY_WINDOW");
    });

    it("has landed once the served certificate expires later than before the request", () => {
      const earlier = new Date(T.getTime() - 1000);
      const landed = verdictAt(served, realNow, {
        acceptedAt: at(-3 * DAY),
        expiryAtRequest: earlier,
      });
      expect(landed.status).toBe("ok");
      // No later than the old expiry (equal) is still the old certificate.
      expect(
        verdictAt(served, realNow, { acceptedAt: at(-3 * DAY), expiryAtRequest: T }).status,
      ).toBe("not-landed");
    });

    it("with the fingerprint from before, a re-issued certificate of the same expiry landed; the same one has not", async () => {
      // The same name and dates, another serial: another certificate (another fingerprint).
      const reissued = await observe(
        makeLeaf(trusted, {
          names: ["www.contoso.test"],
          notBefore: at(-30 * DAY),
          notAfter: T,
          serial: "0a1b2c3e",
        }),
      );
      const before = served.reached ? served.certificate.thumbprint : "";
      const renewal = { acceptedAt: at(-HOUR), expiryAtRequest: T, beforeThumbprint: before };
      expect(reissued.reached && reissued.certificate.thumbprint).not.toBe(before);
      expect(verdictAt(reissued, realNow, renewal).status).toBe("ok");
      // Without the fingerprint the date rule says the same certificate: not landed yet.
      expect(
        verdictAt(reissued, realNow, { acceptedAt: at(-HOUR), expiryAtRequest: T }).status,
      ).toBe("pending");
      const still = verdictAt(served, realNow, renewal);
      expect(still.status).toBe("pending");
      expect(still.detail).toContain(
        `the certificate served is still the one from before the renewal (SHA-256 ${before.slice(0, 16)}…, expires `,
      );
    });

    it("with the fingerprint from before, a different certificate for another name is mismatch, not a landing", async () => {
      const other = await observe(good(at(90 * DAY), ["shop.contoso.test"]));
      const before = served.reached ? served.certificate.thumbprint : "";
      const v = verdictAt(other, realNow, {
        acceptedAt: at(-HOUR),
        expiryAtRequest: T,
        beforeThumbprint: before,
      });
      expect(v.status).toBe("mismatch");
    });

    it("an expired certificate is expired, renewal or not", () => {
      const now = new Date(T.getTime() + HOUR);
      expect(verdictAt(served, now, { acceptedAt: now, expiryAtRequest: T }).status).toBe(
        "expired",
      );
    });
  });
});

describe("every status, and the contract's order", () => {
  it("not valid yet (notBefore an hour ahead, a trusted CA): untrusted, as a browser refuses it", async () => {
    const probe = await observe(
      makeLeaf(trusted, {
        names: ["www.contoso.test"],
        notBefore: at(HOUR),
        notAfter: at(60 * DAY),
      }),
    );
    const v = verdictAt(probe, realNow);
    expect(v).toMatchObject({ status: "untrusted", daysLeft: 60 });
    expect(v.detail).toBe(
      `the certificate is not valid before ${at(HOUR).toISOString()} (CERT_NOT_YET_VALID); issued by CN=certsched test root CA`,
    );
    // From its notBefore on, the same certificate is fine.
    expect(verdictAt(probe, at(HOUR)).status).toBe("ok");
  });

  it("expired an hour ago, by the real clock (a trusted CA): expired, not untrusted", async () => {
    const probe = await observe(good(at(-HOUR)));
    const v = verdictAt(probe, realNow);
    expect(v).toMatchObject({
      status: "expired",
      daysLeft: -1,
      servedNotAfter: at(-HOUR).toISOString(),
    });
  });

  it("a name the certificate does not cover: mismatch, naming what it covers", async () => {
    const v = verdictAt(await observe(good(at(60 * DAY), ["other.test", "*.other.test"])), realNow);
    expect(v.status).toBe("mismatch");
    expect(v.detail).toBe(
      "the certificate served does not cover www.contoso.test: it names DNS:other.test, DNS:*.other.test",
    );
    expect(v.daysLeft).toBe(60);
  });

  it("a certificate naming hundreds of hosts: mismatch names the first ten and counts the rest", async () => {
    const names = Array.from({ length: 300 }, (_, i) => `host-${i}.other.test`);
    const v = verdictAt(await observe(good(at(60 * DAY), names)), realNow);
    expect(v.status).toBe("mismatch");
    expect(v.detail).toBe(
      `the certificate served does not cover www.contoso.test: it names ${names
        .slice(0, 10)
        .map((n) => `DNS:${n}`)
        .join(", ")} and 290 more`,
    );
  });

  it("a chain from an unknown CA, sent along: untrusted", async () => {
    const probe = await observe(
      withIssuer(
        makeLeaf(unknown, {
          names: ["www.contoso.test"],
          notBefore: at(-DAY),
          notAfter: at(60 * DAY),
        }),
        unknown,
      ),
    );
    const v = verdictAt(probe, realNow);
    expect(v.status).toBe("untrusted");
    expect(v.detail).toContain("SELF_SIGNED_CERT_IN_CHAIN");
    expect(v.detail).toContain("issued by CN=an unknown CA");
  });

  it("a leaf from an unknown CA served alone: incomplete-chain, before untrusted (its issuer is nowhere)", async () => {
    const probe = await observe(
      makeLeaf(unknown, {
        names: ["www.contoso.test"],
        notBefore: at(-DAY),
        notAfter: at(60 * DAY),
      }),
    );
    const v = verdictAt(probe, realNow);
    expect(v.status).toBe("incomplete-chain");
    expect(v.detail).toContain("(CN=an unknown CA)");
  });

  it("untrusted comes before mismatch and expired", async () => {
    const probe = await observe(
      withIssuer(
        makeLeaf(unknown, { names: ["other.test"], notBefore: at(-30 * DAY), notAfter: at(-HOUR) }),
        unknown,
      ),
    );
    expect(verdictAt(probe, realNow).status).toBe("untrusted");
  });

  it("mismatch comes before expired", async () => {
    const probe = await observe(good(at(-HOUR), ["other.test"]));
    expect(verdictAt(probe, realNow).status).toBe("mismatch");
  });

  it("a closed port: unreachable, with neither date nor issuer", async () => {
    const port = await closedPort();
    const [r] = await verifyTargets([{ endpoint: endpoint("www.contoso.test") }], {
      probes: { tls: probeTls },
      settings: { ...SETTINGS, connectTo: parseConnectTo(`::127.0.0.1:${port}`) },
      now: () => realNow,
      ca: CA,
    });
    expect(r).toEqual({
      domain: "www.contoso.test",
      source: "tls",
      status: "unreachable",
      detail: `cannot connect to 127.0.0.1:${port} (ECONNREFUSED)`,
    });
  });

  it("escapes control characters that come from the server", async () => {
    const evil = makeCa("Evil\u001b]0;pwned\u0007CA\u009b");
    const probe = await observe(
      withIssuer(
        makeLeaf(evil, {
          names: ["www.contoso.test"],
          notBefore: at(-DAY),
          notAfter: at(60 * DAY),
        }),
        evil,
      ),
    );
    const v = verdictAt(probe, realNow);
    expect(v.status).toBe("untrusted");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: that is what must not be there.
    const control = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/;
    expect(v.issuer).not.toMatch(control);
    expect(v.detail).not.toMatch(control);
    // OpenSSL escapes C0 controls in names itself; a C1 control (CSI) is ours to escape.
    expect(v.issuer).toContain("\\u{9b}");
  });
});

describe("several endpoints at once", () => {
  it("one result per endpoint in the order asked, counts that agree, attention as the exit code needs", async () => {
    const a = await startTlsServer(good(at(60 * DAY), ["a.contoso.test"]));
    const b = await startTlsServer(good(at(3 * DAY), ["b.contoso.test"]));
    const c = await startTlsServer(good(at(10 * DAY), ["c.contoso.test"]));
    servers.push(a, b, c);
    const port = await closedPort();
    const results = await verifyTargets(
      ["a.contoso.test", "b.contoso.test", "c.contoso.test", "d.contoso.test:8443"].map((d) => ({
        endpoint: endpoint(d),
        certificateName: `cert-${d[0]}`,
      })),
      {
        probes: { tls: probeTls },
        settings: {
          ...SETTINGS,
          connectTo: parseConnectTo(
            `a.contoso.test:443:127.0.0.1:${a.port},b.contoso.test:443:127.0.0.1:${b.port},c.contoso.test:443:127.0.0.1:${c.port},:8443:127.0.0.1:${port}`,
          ),
        },
        now: () => realNow,
        ca: CA,
        concurrency: 2,
      },
    );
    expect(
      results.map((r) => [r.domain, r.certificateName, r.status, r.critical, r.daysLeft]),
    ).toEqual([
      ["a.contoso.test", "cert-a", "ok", undefined, 60],
      ["b.contoso.test", "cert-b", "expiring", true, 3],
      ["c.contoso.test", "cert-c", "expiring", undefined, 10],
      ["d.contoso.test:8443", "cert-d", "unreachable", undefined, undefined],
    ]);
    expect(countStatuses(results)).toEqual({ unreachable: 1, expiring: 2, ok: 1 });
    expect(results.map((r) => needsAttention(r))).toEqual([false, true, false, true]);
    // Within its grace, unreachable waits.
    expect(needsAttention({ status: "unreachable" }, true)).toBe(false);
  });

  it("a certificate whose expiry is not a time is unreadable, not a crash of the whole run", async () => {
    const good1 = await startTlsServer(good(at(60 * DAY), ["a.contoso.test"]));
    const bad = await startTlsServer(certificateWithUnreadableExpiry("bad.contoso.test"));
    servers.push(good1, bad);
    const results = await verifyTargets(
      ["bad.contoso.test", "a.contoso.test"].map((d) => ({ endpoint: endpoint(d) })),
      {
        probes: { tls: probeTls },
        settings: {
          ...SETTINGS,
          connectTo: parseConnectTo(
            `bad.contoso.test:443:127.0.0.1:${bad.port},a.contoso.test:443:127.0.0.1:${good1.port}`,
          ),
        },
        now: () => realNow,
        ca: CA,
      },
    );
    expect(results.map((r) => [r.domain, r.status, r.servedNotAfter])).toEqual([
      ["bad.contoso.test", "unreachable", undefined],
      ["a.contoso.test", "ok", at(60 * DAY).toISOString()],
    ]);
    expect(results[0]?.detail).toContain("the certificate cannot be read");
    expect(results[0]?.detail).toContain("notAfter");
  });

  it.each([
    ["ok", false],
    ["pending", false],
    ["not-landed", true],
    ["expired", true],
    ["mismatch", true],
    ["untrusted", true],
  ] as const)("%s needs attention: %s", (status, needed) => {
    expect(needsAttention({ status })).toBe(needed);
  });
});
