import { describe, expect, it } from "vitest";
import {
  failure,
  MAX_MESSAGE,
  otherCertificate,
} from "../../../../shared/adapters/probes/keyVaultFailure.js";
import { CertschedError } from "../../../../shared/lib/errors.js";
import { REDACTED } from "../../../../shared/lib/redact/redact.js";

const where = {
  vault: "kv1",
  certificate: "web",
  host: "kv1.vault.azure.net",
  timeoutMs: 5_000,
  vaultUrl: "https://kv1.vault.azure.net",
};
const none = { timedOut: false, cancelled: false };
const rest = (statusCode: number | undefined, extra: object = {}) =>
  Object.assign(new Error("Operation returned an invalid status code"), { statusCode, ...extra });

describe("otherCertificate", () => {
  const asked = { url: new URL("https://kv1.vault.azure.net"), vault: "kv1", name: "web" };

  it("undefined for the certificate asked for, names compared without case", () => {
    expect(otherCertificate("https://kv1.vault.azure.net/certificates/web/abc", asked)).toBe(
      undefined,
    );
    expect(otherCertificate("https://KV1.vault.azure.net/certificates/WEB/abc", asked)).toBe(
      undefined,
    );
    // The same vault under another suffix (a sovereign cloud, the sandbox).
    expect(otherCertificate("https://kv1.vault.azure.cn/certificates/web/abc", asked)).toBe(
      undefined,
    );
  });

  it("names another certificate or vault that answered", () => {
    expect(otherCertificate("https://kv1.vault.azure.net/certificates/api/abc", asked)).toBe(
      "api in vault kv1",
    );
    expect(otherCertificate("https://kv2.vault.azure.net/certificates/web/abc", asked)).toBe(
      "web in vault kv2",
    );
    expect(otherCertificate("https://kv1.vault.azure.net/secrets/web/abc", asked)).toBe(
      "web in vault kv1",
    );
  });

  it("an id that is no URL, or none at all, is not the one asked for", () => {
    expect(otherCertificate("not a url", asked)).toBe("(an id that is not a URL)");
    expect(otherCertificate(undefined, asked)).toBe("(an id that is not a URL)");
  });

  it("escapes and bounds what it quotes", () => {
    const shown = otherCertificate(
      `https://kv1.vault.azure.net/certificates/${"n".repeat(500)}%0Aforged/abc`,
      asked,
    );
    expect(shown).toBeDefined();
    expect(shown).not.toContain("\n");
    expect(shown?.length).toBeLessThan(200);
  });
});

describe("failure", () => {
  it("cancelled before timed out, timed out before anything thrown", () => {
    expect(failure(rest(403), where, { timedOut: true, cancelled: true })).toEqual({
      reached: false,
      failure: "cancelled",
      detail: "the verification was cancelled",
    });
    expect(failure(rest(403), where, { timedOut: true, cancelled: false })).toEqual({
      reached: false,
      failure: "timeout",
      detail: "no answer from vault kv1 within 5000 ms (CERTSCHED_HTTP_TIMEOUT)",
    });
  });

  it("our token source's error is a token failure, redacted", () => {
    const thrown = new CertschedError("TOKEN_REFUSED", "AADSTS7000215 Bearer abc.def-ghi");
    expect(failure(thrown, where, none)).toEqual({
      reached: false,
      failure: "token",
      detail: `no vault token for vault kv1: AADSTS7000215 Bearer ${REDACTED}`,
    });
  });

  it("403, 404 and 401 say what to do, with the vault's codes", () => {
    expect(
      failure(
        rest(403, {
          details: { error: { code: "Forbidden", innerError: { code: "ForbiddenByRbac" } } },
        }),
        where,
        none,
      ),
    ).toMatchObject({
      failure: "forbidden",
      status: 403,
      detail: expect.stringContaining(
        "vault kv1 refused to read certificate web (403 Forbidden, ForbiddenByRbac): the app's identity may not read",
      ),
    });
    expect(failure(rest(404, { code: "CertificateNotFound" }), where, none)).toMatchObject({
      failure: "not-found",
      status: 404,
      detail:
        "vault kv1 holds no certificate named web (404 CertificateNotFound): check keyVaultCertificateName, and whether the certificate was deleted",
    });
    expect(
      failure(
        rest(401, { details: { error: { message: "bad audience\nsecond line" } } }),
        where,
        none,
      ),
    ).toMatchObject({
      failure: "unauthorized",
      status: 401,
      detail: "vault kv1 refused certsched's vault token (401): bad audience",
    });
  });

  it("another status quotes the vault's first line, bounded to MAX_MESSAGE", () => {
    const result = failure(
      rest(500, { details: { error: { message: "m".repeat(2_000) } } }),
      where,
      none,
    );
    expect(result).toMatchObject({ failure: "http", status: 500 });
    expect(result.detail).toBe(
      `vault kv1 answered 500 for certificate web: ${"m".repeat(MAX_MESSAGE)}`,
    );
  });

  it("a 2xx that is no certificate, or a redirect, is said as what came back", () => {
    const html = { status: 200, contentType: "text/html", location: undefined };
    expect(failure(new Error("parse"), where, none, html)).toMatchObject({
      failure: "http",
      status: 200,
      detail:
        "vault kv1 answered 200 (text/html) for certificate web, which is not a Key Vault certificate: the address does not lead to the vault (a proxy or portal page?)",
    });
    const redirect = {
      status: 302,
      contentType: undefined,
      location: "https://login.example/path?token=secret#frag",
    };
    expect(failure(rest(302), where, none, redirect)).toMatchObject({
      failure: "http",
      status: 302,
      detail:
        "vault kv1 answered 302 (no content type) for certificate web: a redirect to https://login.example/path, which certsched does not follow (the vault token would go along); the address does not lead to the vault",
    });
    expect(
      failure(rest(301), where, none, { status: 301, contentType: "", location: undefined }).detail,
    ).toContain("a redirect to nowhere (no Location)");
    const edge = { status: 300, contentType: undefined, location: "/elsewhere" };
    expect(failure(rest(300), where, none, edge).detail).toContain(
      "a redirect to https://kv1.vault.azure.net/elsewhere,",
    );
    expect(failure(rest(299), where, none, { ...edge, status: 299 }).detail).toContain(
      "which is not a Key Vault certificate",
    );
  });

  it("an answer outside 2xx and 3xx leaves it to the error", () => {
    const answer = { status: 400, contentType: "application/json", location: undefined };
    expect(failure(rest(400), where, none, answer)).toMatchObject({ failure: "http", status: 400 });
    const fourHundred = { status: 400, contentType: "text/html", location: undefined };
    expect(failure(rest(404), where, none, fourHundred).failure).toBe("not-found");
    expect(failure(rest(404), where, none, { ...fourHundred, status: 199 }).failure).toBe(
      "not-found",
    );
  });

  it("no status: a DNS failure points at keyVaultName; else the network, first line", () => {
    expect(failure(rest(undefined, { code: "ENOTFOUND" }), where, none)).toEqual({
      reached: false,
      failure: "network",
      detail: "cannot resolve kv1.vault.azure.net (ENOTFOUND): check keyVaultName",
    });
    expect(
      failure(Object.assign(new Error("reset\nmore"), { code: "ECONNRESET" }), where, none),
    ).toEqual({
      reached: false,
      failure: "network",
      detail: "cannot read from vault kv1 at kv1.vault.azure.net (ECONNRESET): reset",
    });
    expect(failure("boom", where, none).detail).toBe(
      "cannot read from vault kv1 at kv1.vault.azure.net: boom",
    );
  });
});
