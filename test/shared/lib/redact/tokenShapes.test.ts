import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REDACTED, SecretRegistry } from "../../../../shared/lib/redact/redact.js";
import { redactStrings } from "../../../../shared/lib/redact/redactStrings.js";
import { redactTokenShapes } from "../../../../shared/lib/redact/tokenShapes.js";
import { propertyRuns } from "../../../support/fastCheck.js";

/*
 * Tokens this process was never handed (rows another process wrote) are found by their shape. The
 * shapes must catch every compact JWS and JWE, and never touch a certificate name or a domain,
 * whatever it spells ("eyJ" included).
 */

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64url");
const LOWER = [..."abcdefghijklmnopqrstuvwxyz0123456789"];
const KV_CHARS = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-"];

/** A DNS label (LDH, 1..63, no hyphen at either end); some begin "eyJ" or are punycode. */
const label = fc.oneof(
  fc
    .string({ unit: fc.constantFrom(...LOWER, "-"), minLength: 1, maxLength: 63 })
    .filter((s) => !s.startsWith("-") && !s.endsWith("-")),
  fc
    .string({ unit: fc.constantFrom(...LOWER), minLength: 1, maxLength: 40 })
    .map((s) => `xn--${s}`),
  // Base64url-looking labels that start like a JOSE header: the hardest names to leave alone.
  fc
    .string({
      unit: fc.constantFrom(...KV_CHARS.filter((c) => c !== "-")),
      minLength: 4,
      maxLength: 60,
    })
    .map((s) => `eyJ${s}`),
);
const domain = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 5 }), fc.boolean())
  .map(([labels, wildcard]) => `${wildcard ? "*." : ""}${labels.join(".")}`);
/** A Key Vault certificate name (what the service's names follow): 1..127 of [0-9a-zA-Z-]. */
const certificateName = fc.oneof(
  fc.string({ unit: fc.constantFrom(...KV_CHARS), minLength: 1, maxLength: 127 }),
  fc
    .string({ unit: fc.constantFrom(...KV_CHARS), minLength: 1, maxLength: 60 })
    .map((s) => `eyJ${s}`),
  domain.map((d) => d.replaceAll(".", "-").replaceAll("*", "wildcard")),
);

/** A JOSE header as issuers write them: alg, and for a JWE enc; other members vary. */
const header = (jwe: boolean) =>
  fc.record({
    alg: fc.constantFrom("RS256", "ES256", "HS256", "none", "RSA-OAEP-256", "dir"),
    ...(jwe ? { enc: fc.constantFrom("A256GCM", "A128CBC-HS256") } : {}),
    typ: fc.option(fc.constantFrom("JWT", "at+jwt"), { nil: undefined }),
    kid: fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
  });
const segment = (max: number) => fc.uint8Array({ minLength: 0, maxLength: max }).map(b64url);
const jws = fc
  .tuple(
    header(false),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 20 })),
    segment(300),
  )
  .map(
    ([h, payload, sig]) => `${b64url(JSON.stringify(h))}.${b64url(JSON.stringify(payload))}.${sig}`,
  );
const jwe = fc
  .tuple(
    header(true),
    segment(300),
    segment(16),
    fc.uint8Array({ minLength: 1, maxLength: 400 }),
    segment(16),
  )
  .map(([h, key, iv, c, tag]) => `${b64url(JSON.stringify(h))}.${key}.${iv}.${b64url(c)}.${tag}`);

describe("token shapes: certificate names and domains are left alone", () => {
  it("redactTokenShapes and redact() (nothing registered) never change a valid name or domain", () => {
    const registry = new SecretRegistry();
    fc.assert(
      fc.property(fc.oneof(certificateName, domain), (name) => {
        expect(redactTokenShapes(name, REDACTED)).toBe(name);
        expect(registry.redact(name)).toBe(name);
        expect(registry.redact(`Certificate ${name} is scheduled for renewal.`)).toBe(
          `Certificate ${name} is scheduled for renewal.`,
        );
      }),
      { numRuns: propertyRuns(2000) },
    );
  });
});

describe("token shapes: every compact JWS and JWE is found, whatever surrounds it", () => {
  it("leaves nothing of the token in any text", () => {
    fc.assert(
      fc.property(
        fc.oneof(jws, jwe),
        fc.string({ maxLength: 30 }),
        fc.string({ maxLength: 30 }),
        (token, before, after) => {
          const out = redactTokenShapes(`${before}${token}${after}`, REDACTED);
          expect(out).toContain(REDACTED);
          expect(out).not.toContain(token);
          // Not even the signature or the ciphertext, the parts that make it usable.
          const last = token
            .split(".")
            .filter((s) => s.length >= 8)
            .at(-1);
          if (last !== undefined) expect(out).not.toContain(last);
        },
      ),
      { numRuns: propertyRuns(1000) },
    );
  });

  it("finds a token glued to a word, or after a string that only looks like a header", () => {
    const token = `${b64url('{"alg":"RS256","typ":"JWT"}')}.${b64url('{"aud":"x"}')}.${"s".repeat(40)}`;
    expect(redactTokenShapes(`accessToken=${token}`, REDACTED)).toBe(`accessToken=${REDACTED}`);
    expect(redactTokenShapes(`xyz${token}`, REDACTED)).toBe(`xyz${REDACTED}`);
    expect(redactTokenShapes(`eyJnot.a.eyJheader-${token}`, REDACTED)).toBe(
      `eyJnot.a.eyJheader-${REDACTED}`,
    );
  });

  it("finds the shortest tokens: a short alg, empty payload and signature (a run of 23 was missed)", () => {
    // The counterexample a property found at its 71,444th run, then the shortest header there is.
    expect(redactTokenShapes("a eyJhbGciOiJkaXIifQ.e30. b", REDACTED)).toBe(`a ${REDACTED} b`);
    const shortest = `${b64url('{"alg":""}')}..`;
    expect(shortest).toHaveLength(16);
    expect(redactTokenShapes(`[${shortest}]`, REDACTED)).toBe(`[${REDACTED}]`);
  });

  it("needs a header naming its alg: a JSON object without one is not a token", () => {
    const noAlg = `${b64url('{"typ":"JWT","kid":"abc"}')}.${b64url('{"a":1}')}.${"s".repeat(40)}`;
    expect(redactTokenShapes(noAlg, REDACTED)).toBe(noAlg);
  });

  it("takes a JWE's five segments, a JWS's three", () => {
    const h = (value: object) => b64url(JSON.stringify(value));
    const jwsToken = `${h({ alg: "RS256" })}.${h({ a: 1 })}.sig-nature`;
    const jweToken = `${h({ alg: "dir", enc: "A256GCM" })}..iv-iv-iv.cipher-text.tag-tag`;
    expect(redactTokenShapes(`${jwsToken}.com`, REDACTED)).toBe(`${REDACTED}.com`);
    expect(redactTokenShapes(`${jweToken}.com`, REDACTED)).toBe(`${REDACTED}.com`);
  });

  it("a header segment longer than 512 characters is not one (the bound that keeps it linear)", () => {
    const h = (pad: number) => b64url(JSON.stringify({ alg: "RS256", x: "p".repeat(pad) }));
    const fits = h(300);
    const tooLong = h(400);
    expect(fits.length).toBeLessThanOrEqual(512);
    expect(tooLong.length).toBeGreaterThan(512);
    expect(redactTokenShapes(`${fits}.e30.sig`, REDACTED)).toBe(REDACTED);
    expect(redactTokenShapes(`${tooLong}.e30.sig`, REDACTED)).toBe(`${tooLong}.e30.sig`);
  });

  it("stays fast on a hostile text packed with header look-alikes", () => {
    const text = `${"eyJh".repeat(128)}In0.`.repeat(6_000); // about 3 MiB
    const started = performance.now();
    redactTokenShapes(text, REDACTED);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe("token shapes: the sandbox's opaque tokens", () => {
  it("finds simtok- and 48 hex digits, nothing shorter", () => {
    const token = `simtok-${"0123456789abcdef".repeat(3)}`;
    expect(redactTokenShapes(`token ${token} ok`, REDACTED)).toBe(`token ${REDACTED} ok`);
    const short = token.slice(0, -1);
    expect(redactTokenShapes(`token ${short} ok`, REDACTED)).toBe(`token ${short} ok`);
  });
});

describe("redactStrings", () => {
  it("redacts every string and key, keeps numbers, dates and __proto__ as a key", () => {
    const token = `simtok-${"ab".repeat(24)}`;
    const date = new Date(0);
    const value = JSON.parse(
      `{"a":"x ${token}","n":7,"list":[{"${token}":"k"}],"__proto__":{"p":"${token}"}}`,
    ) as Record<string, unknown>;
    const out = redactStrings({ ...value, date }) as Record<string, unknown>;
    expect(JSON.stringify(out)).not.toContain(token);
    expect(out.a).toBe(`x ${REDACTED}`);
    expect(out.n).toBe(7);
    expect(out.date).toBe(date);
    expect(out.list).toEqual([{ [REDACTED]: "k" }]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it("walks JSON nested far deeper than the call stack goes", () => {
    const depth = 200_000;
    const deep = JSON.parse(`${"[".repeat(depth)}"simtok-${"cd".repeat(24)}"${"]".repeat(depth)}`);
    let inner: unknown = redactStrings(deep);
    for (let i = 0; i < depth; i++) inner = (inner as unknown[])[0];
    expect(inner).toBe(REDACTED);
  });
});
