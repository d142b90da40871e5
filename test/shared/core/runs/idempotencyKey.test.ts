import { HttpRequest } from "@azure/functions";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_KEY_LENGTH } from "../../../../shared/core/runs/idempotencyKey.js";
import type { Caller } from "../../../../shared/edge/auth/callerOf.js";
import { idempotencyKeyOf } from "../../../../shared/edge/idempotencyKey.js";
import { ValidationError } from "../../../../shared/lib/errors.js";
import { propertyRuns } from "../../../support/fastCheck.js";

const KEY_HOLDER: Caller = { kind: "function-key" };

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
      idempotencyKeyOf(
        new HttpRequest({ method: "POST", url: "http://localhost/api/renewals" }),
        KEY_HOLDER,
      ),
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
          hash = idempotencyKeyOf(requestWith(key), KEY_HOLDER);
        } catch (e) {
          error = e;
        }
        if (ok) {
          expect(hash).toMatch(/^[0-9a-f]{64}$/);
          expect(idempotencyKeyOf(requestWith(key), KEY_HOLDER)).toBe(hash);
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
    const a = idempotencyKeyOf(requestWith("key-a"), KEY_HOLDER);
    expect(idempotencyKeyOf(requestWith("key-b"), KEY_HOLDER)).not.toBe(a);
    expect(idempotencyKeyOf(requestWith("key-a"), KEY_HOLDER)).toBe(a);
  });

  it("files one key of two callers under two hashes, and of one caller under one", () => {
    const entra = (id: string): Caller => ({ kind: "entra", id, name: "same name", roles: [] });
    const withFunctionKey = (fk: string | undefined) =>
      new HttpRequest({
        method: "POST",
        url: "http://localhost:7071/api/renewals",
        headers: { "Idempotency-Key": "k", ...(fk ? { "x-functions-key": fk } : {}) },
      });
    const hashes = [
      idempotencyKeyOf(requestWith("k"), entra("oid-a")),
      idempotencyKeyOf(requestWith("k"), entra("oid-b")),
      idempotencyKeyOf(withFunctionKey("fk-1"), KEY_HOLDER),
      idempotencyKeyOf(withFunctionKey("fk-2"), KEY_HOLDER),
      idempotencyKeyOf(withFunctionKey(undefined), KEY_HOLDER),
    ];
    expect(new Set(hashes).size).toBe(hashes.length);
    expect(idempotencyKeyOf(requestWith("k"), entra("oid-a"))).toBe(hashes[0]);
    expect(idempotencyKeyOf(withFunctionKey("fk-1"), KEY_HOLDER)).toBe(hashes[2]);
    // The Entra ID caller is its object id, whatever function key it came with.
    expect(idempotencyKeyOf(withFunctionKey("fk-9"), entra("oid-a"))).toBe(hashes[0]);
  });
});
