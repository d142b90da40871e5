import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BACKDATING_MS,
  classify,
  type JudgeContext,
  rejudge,
  windowEnd,
} from "../../../../shared/core/transparency/classify.js";
import { namesMatch } from "../../../../shared/core/transparency/dnsName.js";
import type {
  Issuance,
  KnownCertificate,
  SeenIssuance,
  SentRequest,
} from "../../../../shared/core/transparency/issuance.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { propertyRuns } from "../../../support/fastCheck.js";

/** What holds for every issuance, every certificate read and every request sent. */

/** A few fixed hashes (so some collide) and any other. */
const hex64 = fc.oneof(
  fc.constantFrom(..."0123abcd").map((c) => c.repeat(64)),
  fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }).map((n) => n.toString(16).padStart(64, "0")),
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const T0 = Date.parse("2026-01-01T00:00:00Z");
/** Any time in two months, or (half of them) in three days, so windows, landings and now meet. */
const instant = fc
  .oneof(
    fc.integer({ min: T0, max: T0 + 60 * DAY_MS }),
    fc.integer({ min: T0, max: T0 + 3 * DAY_MS }),
  )
  .map((ms) => new Date(ms));
const label = fc.constantFrom("www", "api", "shop", "*", "a");
const domain = fc.constantFrom("contoso.com", "fabrikam.net", "example.org");
const name = fc.tuple(label, domain).map(([l, d]) => `${l}.${d}`);

const issuanceOf = (hashes: fc.Arbitrary<{ tbs?: string; pubkey?: string }>) =>
  fc
    .record({
      id: fc.stringMatching(/^[0-9]{1,20}$/),
      hashes,
      certSha256: maybe(hex64),
      notBefore: maybe(instant),
      dnsNames: fc.array(name, { maxLength: 4 }),
    })
    .map(
      ({ hashes: h, ...rest }): Issuance => ({
        ...rest,
        tbsSha256: h.tbs,
        pubkeySha256: h.pubkey,
        moreNames: 0,
        revoked: false,
        problems: [],
      }),
    );

const knownCert: fc.Arbitrary<KnownCertificate> = fc.record({
  certificateName: fc.constantFrom("a", "b", "c"),
  where: fc.constantFrom("served", "vault", "receipt"),
  pubkeySha256: maybe(hex64),
  tbsSha256: maybe(hex64),
});

const sentRequest: fc.Arbitrary<SentRequest> = fc.record({
  certificateName: fc.constantFrom("a", "b", "c"),
  names: fc.array(name, { maxLength: 3 }),
  kind: fc.constantFrom("renewal", "creation"),
  sentAt: instant,
  landedAt: fc.option(instant, { nil: undefined, freq: 2 }),
});

const contextOf = (known: fc.Arbitrary<KnownCertificate[]>, sent: fc.Arbitrary<SentRequest[]>) =>
  fc.record({
    known,
    sent,
    now: instant,
    completionWindowMs: fc.integer({ min: 0, max: 7 * DAY_MS }),
  });

const anyContext: fc.Arbitrary<JudgeContext> = contextOf(
  fc.array(knownCert, { maxLength: 4 }),
  fc.array(sentRequest, { maxLength: 4 }),
);

describe("classify, for every input", () => {
  it("a precertificate or certificate of a known certificate (same TBS or key, any certificate hash) is expected", () => {
    fc.assert(
      fc.property(
        knownCert,
        fc.constantFrom("tbs", "pubkey", "both"),
        issuanceOf(fc.record({ tbs: maybe(hex64), pubkey: maybe(hex64) })),
        anyContext,
        (cert, shared, item, ctx) => {
          fc.pre(cert.tbsSha256 !== undefined && cert.pubkeySha256 !== undefined);
          const precert: Issuance = {
            ...item,
            ...(shared !== "pubkey" ? { tbsSha256: cert.tbsSha256?.toUpperCase() } : {}),
            ...(shared !== "tbs" ? { pubkeySha256: cert.pubkeySha256 } : {}),
          };
          const verdict = classify(precert, { ...ctx, known: [...ctx.known, cert] });
          expect(verdict.kind).toBe("expected");
          expect(verdict.kind === "expected" && verdict.because).not.toBe("request");
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });

  it("an issuance with fresh hashes and no request sent is unexpected, since now", () => {
    fc.assert(
      fc.property(
        issuanceOf(fc.record({ tbs: maybe(hex64), pubkey: maybe(hex64) })),
        contextOf(fc.array(knownCert, { maxLength: 4 }), fc.constant([])),
        (item, ctx) => {
          const hashes = new Set(ctx.known.flatMap((k) => [k.tbsSha256, k.pubkeySha256]));
          fc.pre(!hashes.has(item.tbsSha256) && !hashes.has(item.pubkeySha256));
          const verdict = classify(item, ctx);
          expect(verdict).toMatchObject({ kind: "unexpected", since: ctx.now });
          expect(verdict.kind === "unexpected" && verdict.why).toMatch(/^\S.*[^.]$/);
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });

  it("a request verdict names a request for one of its names whose window holds its notBefore", () => {
    const kinds = new Set<string>();
    fc.assert(
      fc.property(issuanceOf(fc.constant({})), anyContext, (item, ctx) => {
        const verdict = classify(item, ctx);
        kinds.add(verdict.kind === "expected" ? verdict.because : verdict.kind);
        if (
          verdict.kind === "unexpected" ||
          (verdict.kind === "expected" && verdict.because !== "request")
        ) {
          return;
        }
        const notBefore = item.notBefore?.getTime() ?? Number.NaN;
        const explaining = ctx.sent.filter(
          (s) =>
            s.certificateName === verdict.certificateName &&
            s.sentAt.getTime() === verdict.sentAt.getTime() &&
            s.names.some((n) => item.dnsNames.some((d) => namesMatch(n, d))) &&
            notBefore >= s.sentAt.getTime() - BACKDATING_MS &&
            notBefore <= windowEnd(s, ctx.completionWindowMs).getTime(),
        );
        expect(explaining.length).toBeGreaterThan(0);
        if (verdict.kind === "expected") {
          expect(explaining.some((s) => s.landedAt !== undefined)).toBe(true);
        } else {
          expect(explaining.every((s) => s.landedAt === undefined)).toBe(true);
          expect(verdict.until.getTime()).toBeGreaterThan(ctx.now.getTime());
        }
      }),
      { numRuns: propertyRuns(500) },
    );
    // The generators reach every verdict a request can give, so the property is not vacuous.
    expect([...kinds].sort()).toEqual(["pending", "request", "unexpected"]);
  });

  it("what it is does not depend on the order of what was read and sent", () => {
    fc.assert(
      fc.property(
        issuanceOf(fc.record({ tbs: maybe(hex64), pubkey: maybe(hex64) })),
        anyContext,
        (item, ctx) => {
          const reversed = {
            ...ctx,
            known: [...ctx.known].reverse(),
            sent: [...ctx.sent].reverse(),
          };
          expect(classify(item, reversed).kind).toBe(classify(item, ctx).kind);
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });

  it("rejudging never turns an expected or unexpected verdict, nor a pending one before its end", () => {
    fc.assert(
      fc.property(
        issuanceOf(fc.record({ tbs: maybe(hex64), pubkey: maybe(hex64) })),
        anyContext,
        anyContext,
        (item, first, later) => {
          const seen: SeenIssuance = {
            account: "default",
            issuance: item,
            watched: "contoso.com",
            firstSeenAt: first.now,
            verdict: classify(item, first),
          };
          const again = rejudge(seen, later);
          if (seen.verdict.kind !== "pending") {
            expect(again).toBe(seen.verdict);
          } else if (again.kind === "unexpected") {
            expect(later.now.getTime()).toBeGreaterThanOrEqual(seen.verdict.until.getTime());
          }
        },
      ),
      { numRuns: propertyRuns(500) },
    );
  });
});
