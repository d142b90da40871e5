import { describe, expect, it } from "vitest";
import {
  BACKDATING_MS,
  classify,
  type JudgeContext,
  rejudge,
  spanText,
} from "../../../../shared/core/transparency/classify.js";
import type {
  Issuance,
  IssuanceVerdict,
  KnownCertificate,
  SeenIssuance,
  SentRequest,
} from "../../../../shared/core/transparency/issuance.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";

/** Telling certsched's issuances from anyone else's. */

const at = (iso: string) => new Date(iso);
const plus = (d: Date, ms: number) => new Date(d.getTime() + ms);
const hash = (c: string) => c.repeat(64);
const WINDOW = 2 * DAY_MS;
const sentAt = at("2026-11-05T00:00:00Z");
const end = plus(sentAt, WINDOW);

const issuance = (fields: Partial<Issuance> = {}): Issuance => ({
  id: "1001",
  tbsSha256: hash("1"),
  certSha256: hash("2"),
  pubkeySha256: hash("3"),
  notBefore: plus(sentAt, HOUR_MS),
  notAfter: plus(sentAt, 90 * DAY_MS),
  dnsNames: ["www.contoso.com"],
  moreNames: 0,
  issuer: "Let's Encrypt R11",
  revoked: false,
  problems: [],
  ...fields,
});
const request = (fields: Partial<SentRequest> = {}): SentRequest => ({
  certificateName: "www-contoso",
  names: ["www.contoso.com", "api.contoso.com"],
  kind: "renewal",
  sentAt,
  ...fields,
});
const context = (fields: Partial<JudgeContext> = {}): JudgeContext => ({
  known: [],
  sent: [],
  now: plus(end, DAY_MS),
  completionWindowMs: WINDOW,
  ...fields,
});
const known = (fields: Partial<KnownCertificate>): KnownCertificate => ({
  certificateName: "www-contoso",
  where: "served",
  ...fields,
});

describe("classify: by hash", () => {
  it("the same TBS hash is the same certificate (a precertificate has another certificate hash)", () => {
    const verdict = classify(
      issuance({ certSha256: hash("9") }),
      context({ known: [known({ tbsSha256: hash("1"), where: "receipt" })] }),
    );

    expect(verdict).toEqual({
      kind: "expected",
      because: "tbs",
      certificateName: "www-contoso",
      where: "receipt",
    });
  });

  it("the same public key is a certificate certsched has read (any case)", () => {
    const verdict = classify(
      issuance({ tbsSha256: undefined, pubkeySha256: hash("A") }),
      context({ known: [known({ pubkeySha256: hash("a"), where: "vault" })] }),
    );

    expect(verdict).toMatchObject({ kind: "expected", because: "public-key", where: "vault" });
  });

  it("never by the certificate hash: a certificate hash equal to a known TBS or key is no match", () => {
    const verdict = classify(
      issuance({ tbsSha256: undefined, pubkeySha256: undefined, certSha256: hash("5") }),
      context({ known: [known({ tbsSha256: hash("5"), pubkeySha256: hash("5") })] }),
    );

    expect(verdict.kind).toBe("unexpected");
  });
});

describe("classify: by a request certsched sent", () => {
  const landed = request({ landedAt: plus(sentAt, 3 * HOUR_MS) });

  it.each([
    ["2 hours before the request (CAs backdate)", -BACKDATING_MS, "expected"],
    ["a millisecond earlier", -BACKDATING_MS - 1, "unexpected"],
    ["exactly at the window's end", WINDOW, "expected"],
    ["a millisecond after the window", WINDOW + 1, "unexpected"],
  ])("notBefore %s: %s", (_, offset, kind) => {
    const verdict = classify(
      issuance({ notBefore: plus(sentAt, offset) }),
      context({ sent: [landed] }),
    );

    expect(verdict.kind).toBe(kind);
  });

  it("a landed request explains it: expected because of the request", () => {
    expect(classify(issuance(), context({ sent: [landed] }))).toEqual({
      kind: "expected",
      because: "request",
      certificateName: "www-contoso",
      sentAt,
    });
  });

  it.each([
    [["*.contoso.com"], ["www.contoso.com"], true],
    [["www.contoso.com"], ["*.contoso.com"], true],
    [["contoso.com"], ["www.contoso.com"], false],
    [["*.contoso.com"], ["a.b.contoso.com"], false],
    [["www.fabrikam.net"], ["www.contoso.com", "WWW.fabrikam.net"], true],
  ])("request for %j, issuance for %j: expected %s", (names, dnsNames, expected) => {
    const verdict = classify(
      issuance({ dnsNames }),
      context({ sent: [request({ names, landedAt: end })] }),
    );

    expect(verdict.kind === "expected").toBe(expected);
  });

  it("a request not landed yet: pending until its window ends, unexpected from that moment", () => {
    const open = request();

    expect(classify(issuance(), context({ sent: [open], now: plus(end, -1) }))).toEqual({
      kind: "pending",
      certificateName: "www-contoso",
      sentAt,
      until: end,
    });
    const verdict = classify(issuance(), context({ sent: [open], now: end }));
    expect(verdict).toEqual({
      kind: "unexpected",
      since: end,
      why: 'no certificate certsched has read has its public key, and the renewal certsched sent for these names at 2026-11-05T00:00:00Z (certificate "www-contoso") had not landed when its completion window ended at 2026-11-07T00:00:00Z',
    });
  });

  it("of several open requests, waits for the latest window", () => {
    const later = request({ certificateName: "later", sentAt: plus(sentAt, HOUR_MS) });

    expect(classify(issuance(), context({ sent: [request(), later], now: sentAt }))).toMatchObject({
      kind: "pending",
      certificateName: "later",
      until: plus(end, HOUR_MS),
    });
  });

  it("a landed request wins over an open one", () => {
    const open = request({ certificateName: "open" });
    const done = request({ certificateName: "done", landedAt: end });

    expect(classify(issuance(), context({ sent: [open, done], now: sentAt }))).toMatchObject({
      kind: "expected",
      certificateName: "done",
    });
  });
});

describe("classify: unexpected, in plain words", () => {
  const now = at("2026-11-20T00:00:00Z");

  it.each([
    [
      "no request for its names",
      issuance(),
      [request({ names: ["www.fabrikam.net"], landedAt: end })],
      "no certificate certsched has read has its public key, and certsched sent no request for these names in the 2 days before it was issued",
    ],
    [
      "a request long before it",
      issuance({ notBefore: plus(end, DAY_MS) }),
      [request({ landedAt: end })],
      "no certificate certsched has read has its public key, and certsched sent no request for these names in the 2 days before it was issued",
    ],
    [
      "no notBefore",
      issuance({ notBefore: undefined }),
      [request({ landedAt: end })],
      "no certificate certsched has read has its public key, and its notBefore could not be read, so it cannot be placed in the completion window of a request certsched sent",
    ],
    [
      "no hashes",
      issuance({ tbsSha256: undefined, pubkeySha256: undefined }),
      [],
      "its public key could not be read to compare with the certificates certsched has read, and certsched sent no request for these names in the 2 days before it was issued",
    ],
  ])("%s", (_, item, sent, why) => {
    expect(classify(item, context({ sent, now }))).toEqual({ kind: "unexpected", since: now, why });
  });

  it("a certificate name from the service is shown with its control characters visible", () => {
    const verdict = classify(
      issuance(),
      context({ sent: [request({ certificateName: "a\nb" })], now }),
    );

    expect(verdict.kind === "unexpected" && verdict.why).toContain('(certificate "a\\u{0a}b")');
  });

  it.each([
    [2 * DAY_MS, "2 days"],
    [DAY_MS, "1 day"],
    [36 * HOUR_MS, "36 hours"],
    [90 * 60_000, "90 minutes"],
    [1500, "1500 milliseconds"],
  ])("spanText(%d) is %s", (ms, text) => {
    expect(spanText(ms)).toBe(text);
  });
});

describe("rejudge", () => {
  const pending: IssuanceVerdict = {
    kind: "pending",
    certificateName: "www-contoso",
    sentAt,
    until: end,
  };
  const seen = (verdict: IssuanceVerdict): SeenIssuance => ({
    account: "default",
    issuance: issuance(),
    watched: "contoso.com",
    firstSeenAt: plus(sentAt, 2 * HOUR_MS),
    verdict,
  });

  it("pending becomes expected once the request lands", () => {
    const verdict = rejudge(
      seen(pending),
      context({ sent: [request({ landedAt: end })], now: sentAt }),
    );

    expect(verdict).toMatchObject({ kind: "expected", because: "request" });
  });

  it("pending stays pending inside the window, and is unexpected from the window's end", () => {
    expect(rejudge(seen(pending), context({ sent: [request()], now: plus(end, -1) }))).toEqual(
      pending,
    );
    expect(rejudge(seen(pending), context({ sent: [request()], now: end }))).toMatchObject({
      kind: "unexpected",
      since: end,
    });
  });

  it("a request gone from what was read does not end the window early", () => {
    expect(rejudge(seen(pending), context({ sent: [], now: plus(end, -1) }))).toEqual(pending);
    expect(rejudge(seen(pending), context({ sent: [], now: end })).kind).toBe("unexpected");
  });

  it("never changes an expected or unexpected verdict", () => {
    const unexpected: IssuanceVerdict = {
      kind: "unexpected",
      since: sentAt,
      why: "nothing explains it",
    };
    const expected: IssuanceVerdict = {
      kind: "expected",
      because: "tbs",
      certificateName: "x",
      where: "served",
    };
    const explains = context({ known: [known({ tbsSha256: hash("1") })], sent: [request()] });

    expect(rejudge(seen(unexpected), explains)).toBe(unexpected);
    expect(rejudge(seen(expected), context())).toBe(expected);
  });
});
