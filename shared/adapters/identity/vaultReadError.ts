import { CertschedError, UpstreamError } from "../../lib/errors.js";
import { isAnswerTooLarge, sizeText } from "../../lib/http/boundedAnswerPolicy.js";

/** Longest Key Vault error text kept in `detail`; its messages are a sentence or two. */
const MAX_DETAIL_CHARS = 300;

// Names @azure/identity gives its errors; matched by name so this file needs no SDK import.
const CREDENTIAL_ERRORS = new Set([
  "CredentialUnavailableError",
  "AuthenticationError",
  "AggregateAuthenticationError",
  "AuthenticationRequiredError",
]);

/**
 * Maps whatever a Key Vault read threw into SECRET_UNAVAILABLE. The message names the vault host,
 * the secret NAME and the status or cause; it never carries a value (errors from the vault and
 * the network do not contain one, and nothing here reads a response body).
 */
export function vaultReadError(
  vaultUrl: string,
  secretName: string,
  error: unknown,
): UpstreamError {
  const where = `Could not read secret "${secretName}" from Key Vault ${vaultHost(vaultUrl)}`;
  const name = error instanceof Error ? error.name : typeof error;
  const fields =
    error !== null && typeof error === "object" ? (error as Record<string, unknown>) : {};
  const status = typeof fields.statusCode === "number" ? fields.statusCode : undefined;
  const code = typeof fields.code === "string" ? fields.code : undefined;

  if (CREDENTIAL_ERRORS.has(name)) {
    // The managed identity (or developer login) could not get a token: a setup problem, and
    // retrying the same call will not fix it.
    return new UpstreamError(
      "SECRET_UNAVAILABLE",
      "keyVault",
      `${where}: the credential could not get a token for Key Vault (${name})`,
      { retriable: false, cause: error },
    );
  }
  if (isAnswerTooLarge(error) && status !== undefined && status < 300) {
    // Whatever answered is no vault: a secret is at most 25 KiB. Asking again gets the same.
    return new UpstreamError(
      "SECRET_UNAVAILABLE",
      "keyVault",
      `${where}: its answer (HTTP ${status}) is longer than ${sizeText(error.limitBytes)}, all certsched reads of one answer (a Key Vault secret is at most 25 KiB)`,
      { status, retriable: false, cause: error },
    );
  }
  if (status !== undefined) {
    const detail = error instanceof Error ? error.message.slice(0, MAX_DETAIL_CHARS) : undefined;
    return new UpstreamError(
      "SECRET_UNAVAILABLE",
      "keyVault",
      `${where}: HTTP ${status}${code ? ` ${code}` : ""}${hint(status)}`,
      {
        status,
        ...(detail ? { detail } : {}),
        // 408/429/5xx are the vault being busy or unwell; 401/403/404 are configuration.
        retriable: status === 408 || status === 429 || status >= 500,
        cause: error,
      },
    );
  }
  if (name === "AbortError" || name === "TimeoutError") {
    return new UpstreamError(
      "SECRET_UNAVAILABLE",
      "keyVault",
      `${where}: no answer within the timeout (CERTSCHED_HTTP_TIMEOUT)`,
      { retriable: true, cause: error },
    );
  }
  // No status: no answer at all (refused, reset, DNS, TLS). Worth another try later.
  return new UpstreamError(
    "SECRET_UNAVAILABLE",
    "keyVault",
    `${where}: no response (${code ?? name})`,
    { retriable: true, cause: error },
  );
}

/** A failure to build the vault client at all (bad URL, SDK not loadable). */
export function vaultClientError(vaultUrl: string, error: unknown): CertschedError {
  const reason = error instanceof Error ? error.message : String(error);
  return new CertschedError(
    "SECRET_UNAVAILABLE",
    `Could not create a Key Vault client for ${vaultHost(vaultUrl)} (CERTSCHED_KEY_VAULT_URL): ${reason}`,
    { cause: error },
  );
}

/** The host of the vault URL, or the raw setting when it is not a URL. */
export function vaultHost(vaultUrl: string): string {
  try {
    return new URL(vaultUrl).host;
  } catch {
    return JSON.stringify(vaultUrl);
  }
}

function hint(status: number): string {
  if (status === 403)
    return " (is the secret disabled, or does the identity lack the Key Vault Secrets User role?)";
  if (status === 404) return " (does the secret exist under this name?)";
  return "";
}
