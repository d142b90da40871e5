import { CredentialUnavailableError } from "@azure/identity";
import { describe, expect, it } from "vitest";
import { vaultHost, vaultReadError } from "../../../../shared/adapters/identity/vaultReadError.js";
import { UpstreamError } from "../../../../shared/lib/errors.js";

const VAULT = "https://certsched-kv.vault.azure.net";

/** Shaped like the SDK's RestError: `statusCode` when the vault answered, `code` always. */
function restError(message: string, fields: { statusCode?: number; code?: string }): Error {
  return Object.assign(new Error(message), { name: "RestError" }, fields);
}

describe("vaultReadError", () => {
  it.each([
    { status: 401, code: "Unauthorized", retriable: false },
    { status: 403, code: "Forbidden", retriable: false },
    { status: 404, code: "SecretNotFound", retriable: false },
    { status: 408, code: undefined, retriable: true },
    { status: 429, code: "Throttled", retriable: true },
    { status: 500, code: "InternalServerError", retriable: true },
    { status: 503, code: undefined, retriable: true },
  ])("maps HTTP $status as retriable=$retriable", ({ status, code, retriable }) => {
    const error = vaultReadError(
      VAULT,
      "certsched-api-key",
      restError("vault said no", { statusCode: status, ...(code ? { code } : {}) }),
    );

    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.code).toBe("SECRET_UNAVAILABLE");
    expect(error.upstream).toBe("keyVault");
    expect(error.status).toBe(status);
    expect(error.retriable).toBe(retriable);
    expect(error.detail).toBe("vault said no");
    expect(error.message).toContain(
      `"certsched-api-key" from Key Vault certsched-kv.vault.azure.net: HTTP ${status}`,
    );
  });

  it("reports a network failure as retriable, naming its code", () => {
    const error = vaultReadError(
      VAULT,
      "x",
      restError("getaddrinfo ENOTFOUND", { code: "ENOTFOUND" }),
    );

    expect(error.status).toBeUndefined();
    expect(error.retriable).toBe(true);
    expect(error.message).toMatch(/no response \(ENOTFOUND\)$/);
  });

  it("reports a credential without a token as a setup problem", () => {
    const error = vaultReadError(
      VAULT,
      "x",
      new CredentialUnavailableError("no managed identity endpoint"),
    );

    expect(error.retriable).toBe(false);
    expect(error.message).toContain(
      "the credential could not get a token for Key Vault (CredentialUnavailableError)",
    );
  });

  it("names a vault URL that is not a URL as given", () => {
    expect(vaultHost("not a url")).toBe('"not a url"');
    expect(vaultHost("https://a.vault.azure.net/")).toBe("a.vault.azure.net");
  });
});
