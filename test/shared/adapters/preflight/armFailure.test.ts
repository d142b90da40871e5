import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  armDetail,
  armFailure,
  type LookupTrouble,
} from "../../../../shared/adapters/preflight/armFailure.js";
import { MAX_CHECK_DETAIL } from "../../../../shared/core/preflight/preflight.js";
import { TokenError } from "../../../../shared/lib/errors.js";
import { propertyRuns } from "../../../support/fastCheck.js";

const TOKEN = "opaque-management-token-6d1f0c9a2b7e4f38";

const trouble: LookupTrouble = {
  what: "DNS zone contoso.com in resource group rg-dns",
  absent: "DNS zone contoso.com in resource group rg-dns",
  timeoutMs: 5_000,
  timedOut: false,
  cancelled: false,
  tokenFailure: undefined,
  tokens: [TOKEN],
};

/** A RestError as the SDKs throw it: status, ARM's error body as details. */
function restError(statusCode: number, code: string, message: string) {
  return Object.assign(new Error(message), {
    statusCode,
    code,
    details: { error: { code, message } },
  });
}

describe("armDetail", () => {
  it("keeps a detail of exactly MAX_CHECK_DETAIL characters and cuts one of one more", () => {
    const exact = "x".repeat(MAX_CHECK_DETAIL);
    expect(armDetail(exact)).toBe(exact);
    const cut = armDetail(`${exact}y`);
    expect(cut).toHaveLength(MAX_CHECK_DETAIL);
    expect(cut.endsWith("…")).toBe(true);
  });

  it("is one line, with control characters escaped, and without any token handed out", () => {
    expect(armDetail(`a\nb\u001b[31m ${TOKEN} ${TOKEN.toUpperCase()}`, [TOKEN])).toBe(
      `a\\u{0a}b\\u{1b}[31m [REDACTED] ${TOKEN.toUpperCase()}`,
    );
  });
});

describe("armFailure", () => {
  it("maps 404 to missing, 401 and 403 to refused, any other status to unknown", () => {
    expect(armFailure(restError(404, "ResourceNotFound", "gone"), trouble)).toEqual({
      kind: "missing",
      detail:
        "Azure Resource Manager has no DNS zone contoso.com in resource group rg-dns (404 ResourceNotFound)",
    });
    expect(armFailure(restError(401, "InvalidAuthenticationToken", "bad"), trouble)).toMatchObject({
      kind: "refused",
      status: 401,
    });
    expect(armFailure(restError(403, "AuthorizationFailed", "no role"), trouble)).toMatchObject({
      kind: "refused",
      status: 403,
    });
    for (const status of [400, 409, 429, 500, 503]) {
      expect(armFailure(restError(status, "X", "m"), trouble).kind).toBe("unknown");
    }
  });

  it("says a failing token source is a 401 refusal, in the identity provider's words, never quoting a token", () => {
    const failure = new TokenError(
      "TOKEN_UNAVAILABLE",
      `AADSTS7000222: The provided client secret keys are expired.\nTrace ${TOKEN}`,
      { resource: "https://management.core.windows.net/" },
    );
    const answer = armFailure(failure, { ...trouble, tokenFailure: failure });
    expect(answer).toEqual({
      kind: "refused",
      status: 401,
      detail:
        "no management token to read DNS zone contoso.com in resource group rg-dns: AADSTS7000222: The provided client secret keys are expired.",
    });
  });

  it("says a cancel and a timeout are unknown, whatever was thrown, the cancel first", () => {
    const error = restError(404, "ResourceNotFound", "gone");
    expect(armFailure(error, { ...trouble, timedOut: true }).detail).toBe(
      "no answer from Azure Resource Manager within 5000 ms reading DNS zone contoso.com in resource group rg-dns (CERTSCHED_PREFLIGHT_TIMEOUT)",
    );
    expect(armFailure(error, { ...trouble, timedOut: true, cancelled: true })).toEqual({
      kind: "unknown",
      detail: "reading DNS zone contoso.com in resource group rg-dns was cancelled",
    });
  });

  it("quotes a hostile ARM message one line, shortened, redacted and bounded", () => {
    const message = `${"evil\u202e ".repeat(100)}Bearer ${TOKEN}\nsecond line`;
    const answer = armFailure(restError(500, "InternalServerError", message), trouble);
    expect(answer.kind).toBe("unknown");
    expect(answer.detail.length).toBeLessThanOrEqual(MAX_CHECK_DETAIL);
    expect(answer.detail).not.toContain(TOKEN);
    expect(answer.detail).not.toMatch(/[\n\u202e]/);
    expect(
      armFailure(restError(500, "InternalServerError", `Bearer ${TOKEN}`), trouble).detail,
    ).toBe(
      "Azure Resource Manager answered 500 InternalServerError reading DNS zone contoso.com in resource group rg-dns: Bearer [REDACTED]",
    );
  });
});

describe("armFailure, whatever ARM says", () => {
  test.prop(
    [
      fc.integer({ min: 0, max: 320 }),
      fc.string({ unit: "binary", maxLength: 200 }),
      fc.string({ unit: "binary", maxLength: 200 }),
      fc.stringMatching(/^[0-9a-f]{32}$/),
      fc.constantFrom(400, 401, 403, 404, 409, 429, 500, 503),
      fc.constantFrom("", " ", "\n", "Bearer "),
    ],
    { numRuns: propertyRuns(300) },
  )(
    "gives one line of at most 299 characters that holds no piece of a token it handed out",
    (pad, before, after, hex, status, glue) => {
      // The padding puts the token anywhere, across the cuts of ARM's message and of the detail.
      const token = `arm-token-${hex}`;
      const message = `${"m".repeat(pad)}${before}${glue}${token}${after}`;
      const answer = armFailure(restError(status, "Code", message), {
        ...trouble,
        tokens: [token],
      });
      expect(answer.detail.length).toBeLessThanOrEqual(MAX_CHECK_DETAIL);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not be there.
      expect(answer.detail).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
      expect(answer.detail).not.toMatch(/arm-token-[0-9a-f]/);
    },
  );
});
