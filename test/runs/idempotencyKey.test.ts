import { HttpRequest } from "@azure/functions";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../shared/errors.js";
import { idempotencyKeyOf, MAX_KEY_LENGTH } from "../../shared/runs/idempotencyKey.js";
import { propertyRuns } from "../support/fastCheck.js";

const CHARSET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:~+/=-";

function requestWith(key: string): HttpRequest {
  return new HttpRequest({
    method: "POST",
    url: "http://localhost:7071/api/renewals",
    headers: { "Idempotency-Key": key },
  });
}

/** The key as a header carries it: HTTP trims spaces and tabs at both ends. */
const asSent = (key: string) => key.replace(/^[ \t]+|[ \t]+$/g, "");

describe("idempotencyKeyOf", () => {
  it("is undefined without the header", () => {
    expect(
      idempotencyKeyOf(new HttpRequest({ method: "POST", url: "http://localhost/api/renewals" })),
    ).toBeUndefined();
  });

  it("files every key of 1..128 characters from the charset under its SHA-256, and refuses every other printable text naming the header", () => {
    const valid = fc
      .array(fc.constantFrom(...CHARSET), { minLength: 1, maxLength: MAX_KEY_LENGTH })
      .map((chars) => chars.join(""));
    const printable = fc.string({
      unit: fc.constantFrom(..." !\"#$%&'()*,;<>?@[\\]^`{|}é\t"),
      maxLength: 4,
    });
    const anyKey = fc.oneof(
      valid,
      fc.tuple(valid, printable, valid).map(([a, b, c]) => `${a}${b}${c}`),
      fc
        .array(fc.constantFrom(...CHARSET), { minLength: MAX_KEY_LENGTH + 1, maxLength: 300 })
        .map((c) => c.join("")),
      fc.constant(""),
    );
    const seen = { accepted: 0, refused: 0 };
    fc.assert(
      fc.property(anyKey, (key) => {
        const sent = asSent(key);
        const ok =
          sent.length >= 1 &&
          sent.length <= MAX_KEY_LENGTH &&
          [...sent].every((c) => CHARSET.includes(c));
        let hash: string | undefined;
        let error: unknown;
        try {
          hash = idempotencyKeyOf(requestWith(key));
        } catch (e) {
          error = e;
        }
        if (ok) {
          expect(hash).toMatch(/^[0-9a-f]{64}$/);
          expect(idempotencyKeyOf(requestWith(key))).toBe(hash);
          seen.accepted += 1;
        } else {
          expect(error).toBeInstanceOf(ValidationError);
          expect((error as ValidationError).issues.map((i) => i.name)).toEqual(["Idempotency-Key"]);
          // The caller's text is never quoted back (a shorter one could be a word of the rule).
          if (sent.length > 40) expect((error as ValidationError).message).not.toContain(sent);
          seen.refused += 1;
        }
      }),
      { numRuns: propertyRuns(500) },
    );
    expect(seen.accepted).toBeGreaterThan(0);
    expect(seen.refused).toBeGreaterThan(0);
  });

  it("gives two keys two hashes, and one key the same hash every time", () => {
    const a = idempotencyKeyOf(requestWith("key-a"));
    expect(idempotencyKeyOf(requestWith("key-b"))).not.toBe(a);
    expect(idempotencyKeyOf(requestWith("key-a"))).toBe(a);
  });
});
