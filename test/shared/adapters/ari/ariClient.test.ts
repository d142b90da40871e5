import { X509Certificate } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { type AriClient, createAriClient } from "../../../../shared/adapters/ari/ariClient.js";
import { decideAri, stableFraction } from "../../../../shared/core/ari/window.js";
import { type AcmeSimulator, startAcme } from "../../../../sim/index.js";
import { type IssuedLeaf, issueLeaf, opensslCertId } from "../../../support/ariCertificates.js";

/** The ARI client against the simulator's CA, over real sockets. */

const T0 = new Date("2026-11-26T12:00:00Z");
let clock = T0;
const advance = (ms: number) => {
  clock = new Date(clock.getTime() + ms);
};
let acme: AcmeSimulator;
let rsa: IssuedLeaf;
let ec: IssuedLeaf;
let noAki: IssuedLeaf;
let client: AriClient;
const window = {
  start: new Date("2026-12-01T00:00:00Z"),
  end: new Date("2026-12-03T00:00:00Z"),
  explanationUrl: "https://ca.example/why",
};

beforeAll(async () => {
  [acme, rsa, ec, noAki] = await Promise.all([
    startAcme({ ...inject("loopbackTls"), now: () => clock }),
    issueLeaf({ key: "rsa", serial: "87654321" }),
    issueLeaf({ key: "ec", serial: "4242" }),
    issueLeaf({ key: "rsa", serial: "99", aki: false }),
  ]);
}, 60_000);
afterAll(() => acme.close());

const open = (timeoutMs = 2_000, directoryUrl = acme.directoryUrl) =>
  createAriClient({
    directories: [{ issuer: "test ari ca", directoryUrl }],
    timeoutMs,
    now: () => clock,
  });
beforeEach(() => {
  clock = T0;
  acme.clearFaults();
  acme.setRetryAfter("21600");
  acme.requests.splice(0);
  for (const leaf of [rsa, ec]) acme.setWindow(opensslCertId(leaf), window);
  client = open();
});
afterEach(() => client.close());

const served = (leaf: IssuedLeaf) => ({
  certificate: leaf.pem,
  issuer: new X509Certificate(leaf.pem).issuer,
});
const paths = () => acme.requests.map((r) => r.path);

describe("createAriClient: the CA's window for a served certificate", () => {
  it("asks the directory once, then renewalInfo at the CertID openssl computes, for RSA and EC", async () => {
    const a = await client.renewalInfo(served(rsa));
    const b = await client.renewalInfo(served(ec));
    expect(a).toEqual({
      kind: "window",
      certId: opensslCertId(rsa),
      directoryUrl: acme.directoryUrl,
      window: { start: window.start, end: window.end, explanationUrl: window.explanationUrl },
      nextAskAt: new Date(T0.getTime() + 21_600_000),
      cached: false,
    });
    expect(b).toMatchObject({ kind: "window", certId: opensslCertId(ec) });
    expect(paths()).toEqual([
      "/directory",
      `/renewal-info/${opensslCertId(rsa)}`,
      `/renewal-info/${opensslCertId(ec)}`,
    ]);
  });

  it("honours Retry-After: nothing is sent before it (clamped to a minute), the next answer after", async () => {
    acme.setRetryAfter("30");
    const first = await client.renewalInfo(served(rsa));
    expect(first).toMatchObject({ nextAskAt: new Date(T0.getTime() + 60_000), cached: false });
    acme.renewNow(opensslCertId(rsa));
    advance(59_999);
    expect(await client.renewalInfo(served(rsa))).toMatchObject({ cached: true, window });
    expect(paths()).toHaveLength(2);
    advance(1);
    const moved = await client.renewalInfo(served(rsa));
    expect(moved).toMatchObject({ kind: "window", cached: false });
    expect(paths()).toHaveLength(3);
    // "Renew now": a window wholly in the past renews whatever the time chosen in it.
    if (moved.kind !== "window") throw new Error("expected a window");
    expect(moved.window.end.getTime()).toBeLessThan(clock.getTime());
    const fraction = stableFraction(moved.certId, moved.window);
    expect(decideAri(moved.window, { now: clock, fraction })).toMatchObject({
      renew: true,
      reason: "window-ended",
    });
  });

  it("a window that has not started: no renewal (the decision says not-yet)", async () => {
    const outcome = await client.renewalInfo(served(ec));
    if (outcome.kind !== "window") throw new Error("expected a window");
    expect(
      decideAri(outcome.window, {
        now: clock,
        fraction: stableFraction(outcome.certId, outcome.window),
      }),
    ).toMatchObject({ renew: false, reason: "not-yet" });
  });

  it("keeps at most maxRemembered answers: the oldest is asked again, the newest is not", async () => {
    const small = createAriClient({
      directories: [{ issuer: "Test ARI CA", directoryUrl: acme.directoryUrl }],
      timeoutMs: 2_000,
      now: () => clock,
      maxRemembered: 1,
    });
    try {
      await small.renewalInfo(served(rsa));
      await small.renewalInfo(served(ec));
      expect(await small.renewalInfo(served(ec))).toMatchObject({ cached: true });
      expect(await small.renewalInfo(served(rsa))).toMatchObject({ cached: false });
      expect(paths().filter((p) => p.startsWith("/renewal-info/"))).toHaveLength(3);
    } finally {
      await small.close();
    }
  });

  it("asks nothing for an issuer with no directory, or a certificate without a CertID", async () => {
    expect(
      await client.renewalInfo({ certificate: rsa.pem, issuer: "C=US\nO=Other CA\nCN=X1" }),
    ).toEqual({ kind: "not-configured" });
    expect(await client.renewalInfo(served(noAki))).toEqual({
      kind: "no-cert-id",
      reason: "no-authority-key-id",
    });
    expect(paths()).toEqual([]);
  });
});

describe("createAriClient: when the CA fails, a typed outcome, never a throw", () => {
  it("a certificate the CA does not know: refused 404 with its detail, asked again in an hour", async () => {
    acme.setWindow(opensslCertId(rsa), undefined);
    expect(await client.renewalInfo(served(rsa))).toMatchObject({
      kind: "failed",
      failure: {
        reason: "refused",
        status: 404,
        detail: `renewalInfo answered 404: Certificate ${opensslCertId(rsa)} not found`,
      },
      nextAskAt: new Date(T0.getTime() + 3_600_000),
      cached: false,
    });
  });

  it("a 500 on renewalInfo: refused; a malformed or oversized body: bad-answer", async () => {
    acme.setFault("renewalInfo", 500);
    expect(await client.renewalInfo(served(rsa))).toMatchObject({
      kind: "failed",
      failure: { reason: "refused", status: 500, detail: expect.stringContaining("bad day") },
    });
    acme.setFault("renewalInfo", "malformed");
    expect(await client.renewalInfo(served(ec))).toMatchObject({
      kind: "failed",
      failure: {
        reason: "bad-answer",
        detail: "renewalInfo: suggestedWindow.start: must be an RFC 3339 timestamp",
      },
    });
    const other = open();
    acme.setFault("renewalInfo", "huge");
    try {
      expect(await other.renewalInfo(served(ec))).toMatchObject({
        kind: "failed",
        failure: {
          reason: "bad-answer",
          detail: expect.stringContaining("larger than 65536 bytes"),
        },
      });
    } finally {
      await other.close();
    }
  });

  it("a CA that hangs: unreachable within the timeout, and not asked again for other certificates", async () => {
    await client.close();
    client = open(300);
    acme.setFault("renewalInfo", "hang");
    const started = performance.now();
    const first = await client.renewalInfo(served(rsa));
    const elapsed = performance.now() - started;
    expect(first).toMatchObject({
      kind: "failed",
      failure: { reason: "unreachable", detail: expect.stringContaining("within 300 ms") },
      nextAskAt: new Date(T0.getTime() + 3_600_000),
    });
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(5_000);
    const second = await client.renewalInfo(served(ec));
    expect(second).toMatchObject({
      kind: "failed",
      cached: true,
      failure: { reason: "unreachable" },
    });
    expect(paths()).toHaveLength(2);
    // At its retry time the CA is asked again.
    acme.clearFaults();
    advance(3_600_000);
    expect(await client.renewalInfo(served(ec))).toMatchObject({ kind: "window", cached: false });
  });

  it("a directory that fails is fetched once for concurrent certificates and kept until its retry time", async () => {
    acme.setFault("directory", 500);
    const outcomes = await Promise.all([
      client.renewalInfo(served(rsa)),
      client.renewalInfo(served(ec)),
    ]);
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({
        kind: "failed",
        failure: {
          reason: "refused",
          status: 500,
          detail: expect.stringContaining("the ACME directory answered 500"),
        },
      });
    }
    expect(paths()).toEqual(["/directory"]);
    acme.clearFaults();
    advance(3_599_999);
    expect(await client.renewalInfo(served(rsa))).toMatchObject({ kind: "failed" });
    advance(1);
    expect(await client.renewalInfo(served(rsa))).toMatchObject({ kind: "window" });
  });

  it("a CA nobody listens for: unreachable", async () => {
    const closed = await startAcme(inject("loopbackTls"));
    await closed.close();
    const lonely = open(1_000, closed.directoryUrl);
    try {
      expect(await lonely.renewalInfo(served(rsa))).toMatchObject({
        kind: "failed",
        failure: { reason: "unreachable", detail: expect.stringContaining("ECONNREFUSED") },
      });
    } finally {
      await lonely.close();
    }
  });
});
