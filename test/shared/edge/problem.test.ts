import { describe, expect, it } from "vitest";
import { json } from "../../../shared/edge/problem.js";
import { REDACTED, registerSecret } from "../../../shared/lib/redact/redact.js";

/**
 * Every JSON answer of the HTTP functions goes through json(): it is redacted on the way out, with
 * the rule records' data follow. A certificate's name that says "Bearer" and a word ("Bearer Token
 * Service") is no token: the review found it kept in every table, and json() still cut it to
 * "Bearer [REDACTED] Service" in GET /api/certificates.
 */

const secret = "json-answer-secret-8f3c1d";
registerSecret(secret);
// A compact JWS as Entra ID issues them, never handed to this process.
const jws = [
  Buffer.from(JSON.stringify({ alg: "RS256", typ: "JWT", kid: "k1" })).toString("base64url"),
  Buffer.from(JSON.stringify({ aud: "https://management.azure.com", exp: 1 })).toString(
    "base64url",
  ),
  "c2lnbmF0dXJlLW9mLXRoZS10b2tlbg",
].join(".");

const bodyOf = (answer: ReturnType<typeof json>) => JSON.parse(String(answer.body)) as unknown;

describe("json(): what an HTTP function answers", () => {
  it("keeps a certificate's name that says 'Bearer' and a word", () => {
    const answer = json(200, {
      items: [{ certificateName: "Bearer Token Service", domain: "api bearer auth-gateway" }],
    });
    expect(bodyOf(answer)).toEqual({
      items: [{ certificateName: "Bearer Token Service", domain: "api bearer auth-gateway" }],
    });
  });

  it("cuts a secret it holds and a token by its shape, in values and keys", () => {
    const answer = json(200, {
      detail: `the service said ${secret}`,
      [`name-${secret}`]: `quoted ${jws} back`,
    });
    const text = String(answer.body);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(jws);
    expect(bodyOf(answer)).toEqual({
      detail: `the service said ${REDACTED}`,
      [`name-${REDACTED}`]: `quoted ${REDACTED} back`,
    });
  });
});
