import { describe, expect, it } from "vitest";
import {
  ANONYMOUS_SCOPE,
  idempotencyKeyHash,
  scopeOf,
} from "../../../shared/core/runs/idempotencyKey.js";
import { callerScopeOf, idempotencyKeyOf } from "../../../shared/edge/idempotencyKey.js";
import { ValidationError } from "../../../shared/lib/errors.js";
import { httpRequest } from "../../support/invoke.js";

const keyCaller = { kind: "function-key" } as const;
const entra = { kind: "entra", id: "oid-1", name: "Ops", roles: [] } as const;

describe("callerScopeOf", () => {
  it("an Entra ID caller is scoped by object id, whatever key it also sent", () => {
    const request = httpRequest({ path: "renewals", headers: { "x-functions-key": "k1" } });
    expect(callerScopeOf(request, entra)).toBe("entra:oid-1");
  });

  it("a function-key caller is scoped by the key in the header", () => {
    const request = httpRequest({ path: "renewals", headers: { "x-functions-key": "k1" } });
    expect(callerScopeOf(request, keyCaller)).toBe(scopeOf(keyCaller, "k1"));
    expect(callerScopeOf(request, keyCaller)).not.toContain("k1");
  });

  it("or by ?code= when no header carries one; the header wins when both do", () => {
    const byQuery = httpRequest({ path: "renewals", query: { code: "k2" } });
    expect(callerScopeOf(byQuery, keyCaller)).toBe(scopeOf(keyCaller, "k2"));
    const both = httpRequest({
      path: "renewals",
      query: { code: "k2" },
      headers: { "x-functions-key": "k1" },
    });
    expect(callerScopeOf(both, keyCaller)).toBe(scopeOf(keyCaller, "k1"));
  });

  it("no key at all is the one anonymous scope", () => {
    expect(callerScopeOf(httpRequest({ path: "renewals" }), keyCaller)).toBe(ANONYMOUS_SCOPE);
  });
});

describe("idempotencyKeyOf", () => {
  it("undefined without the header", () => {
    expect(idempotencyKeyOf(httpRequest({ path: "renewals" }), keyCaller)).toBeUndefined();
  });

  it("the key's hash in the caller's scope", () => {
    const request = httpRequest({
      path: "renewals",
      headers: { "Idempotency-Key": "abc-123", "x-functions-key": "k1" },
    });
    const hash = idempotencyKeyOf(request, keyCaller);
    expect(hash).toBe(idempotencyKeyHash("abc-123", scopeOf(keyCaller, "k1")));
    expect(hash).not.toBe(idempotencyKeyOf(request, entra));
  });

  it("one key of two function keys is two entries", () => {
    const with1 = httpRequest({
      path: "renewals",
      headers: { "Idempotency-Key": "abc", "x-functions-key": "k1" },
    });
    const with2 = httpRequest({
      path: "renewals",
      headers: { "Idempotency-Key": "abc", "x-functions-key": "k2" },
    });
    expect(idempotencyKeyOf(with1, keyCaller)).not.toBe(idempotencyKeyOf(with2, keyCaller));
  });

  it("an empty or malformed key is a validation error naming the header", () => {
    for (const value of ["", "two keys", "a,b"]) {
      const request = httpRequest({ path: "renewals", headers: { "Idempotency-Key": value } });
      let thrown: unknown;
      try {
        idempotencyKeyOf(request, keyCaller);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ValidationError);
      expect((thrown as ValidationError).issues[0]?.name).toBe("Idempotency-Key");
    }
  });
});
