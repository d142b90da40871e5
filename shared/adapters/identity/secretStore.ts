import type { SecretReader, SecretSource, SecretStore } from "../../core/ports/secrets.js";
import { cachedValue } from "../../lib/cachedValue.js";
import { CertschedError } from "../../lib/errors.js";
import { MIN_SECRET_LENGTH, significantLength } from "../../lib/redact/secretForms.js";
import { createDefaultSecretReader } from "./secretClientReader.js";
import { vaultClientError, vaultHost, vaultReadError } from "./vaultReadError.js";

export interface SecretStoreOptions {
  /** CERTSCHED_KEY_VAULT_URL; when undefined (or empty) only direct values are used. */
  vaultUrl?: string | undefined;
  /** Name of the API key secret in the vault; the default "certsched-api-key" is applied by settings. */
  apiKeySecretName: string;
  /** Name of the client secret in the vault; the default "certsched-client-secret" is applied by settings. */
  clientSecretSecretName: string;
  /**
   * Values given directly (CERTSCHED_API_KEY / CERTSCHED_CLIENT_SECRET) win, for local
   * development. An empty string counts as not set, so a blank setting never shadows the vault.
   */
  direct: { apiKey?: string | undefined; clientSecret?: string | undefined };
  /** How long (ms) a value read from the vault is reused, so a rotation is picked up without a restart. */
  ttlMs: number;
  now: () => Date;
  /**
   * Longest wait for one read, in ms (CERTSCHED_HTTP_TIMEOUT), SDK retries included: a vault
   * that never answers must fail the call, not hang it. Unset: no limit.
   */
  timeoutMs?: number | undefined;
  /**
   * Builds the vault reader, once, on first use. Default: a SecretClient with
   * DefaultAzureCredential, loaded lazily.
   */
  createReader?: (vaultUrl: string) => SecretReader | Promise<SecretReader>;
}

type SecretKind = "apiKey" | "clientSecret";

/** The setting that gives each value directly, and how to call it in a message. */
const DIRECT_SETTING: Record<SecretKind, { setting: string; label: string }> = {
  apiKey: { setting: "CERTSCHED_API_KEY", label: "API key" },
  clientSecret: { setting: "CERTSCHED_CLIENT_SECRET", label: "client secret" },
};

/**
 * The function app's two secrets: a direct value if given, else read from Key Vault and cached
 * for `ttlMs`. All failures are CertschedError SECRET_UNAVAILABLE naming settings and secret
 * names, never values.
 */
export function createSecretStore(options: SecretStoreOptions): SecretStore {
  const vaultUrl = options.vaultUrl || undefined;
  const secretName: Record<SecretKind, string> = {
    apiKey: options.apiKeySecretName,
    clientSecret: options.clientSecretSecretName,
  };

  const getReader = readerOnFirstUse(options);
  const readFromVault = (url: string, kind: SecretKind): Promise<string> =>
    readSecret(getReader, url, secretName[kind], options);

  const source = (kind: SecretKind): SecretSource => {
    if (options.direct[kind]) return "direct";
    return vaultUrl ? "key-vault" : "missing";
  };

  // Only built with a vault configured; reading a secret goes through its own cache.
  const fromVault =
    vaultUrl === undefined
      ? undefined
      : {
          apiKey: cachedValue(() => readFromVault(vaultUrl, "apiKey"), options),
          clientSecret: cachedValue(() => readFromVault(vaultUrl, "clientSecret"), options),
        };

  const get = async (kind: SecretKind, fresh: boolean): Promise<string> => {
    const direct = options.direct[kind];
    if (direct) return direct;
    if (!fromVault) {
      const { setting, label } = DIRECT_SETTING[kind];
      throw new CertschedError(
        "SECRET_UNAVAILABLE",
        `The ${label} is unavailable: ${setting} is not set and CERTSCHED_KEY_VAULT_URL is not configured`,
      );
    }
    return fromVault[kind](fresh);
  };

  const named = new Map<string, (fresh: boolean) => Promise<string>>();
  const getNamed = async (name: string): Promise<string> => {
    if (vaultUrl === undefined) {
      throw new CertschedError(
        "SECRET_UNAVAILABLE",
        `Secret "${name}" is unavailable: CERTSCHED_KEY_VAULT_URL is not configured`,
      );
    }
    let read = named.get(name);
    if (!read) {
      read = cachedValue(() => readSecret(getReader, vaultUrl, name, options), options);
      named.set(name, read);
    }
    return read(false);
  };
  return {
    apiKey: () => get("apiKey", false),
    named: getNamed,
    clientSecret: (opts = {}) => get("clientSecret", opts.fresh ?? false),
    describe: () => ({ apiKey: source("apiKey"), clientSecret: source("clientSecret") }),
  };
}

/**
 * The vault reader, built once on first use (options.createReader, else a SecretClient); a
 * failure to build it is not kept.
 */
function readerOnFirstUse(
  options: Pick<SecretStoreOptions, "createReader">,
): (url: string) => Promise<SecretReader> {
  let reader: Promise<SecretReader> | undefined;
  return (url) => {
    reader ??= (async () => (options.createReader ?? createDefaultSecretReader)(url))().catch(
      (error: unknown) => {
        // Not cached: the next call tries again (a transient failure to load or configure).
        reader = undefined;
        throw vaultClientError(url, error);
      },
    );
    return reader;
  };
}

/** Secret `name` as read from the vault at `url`, within options.timeoutMs. */
async function readSecret(
  getReader: (url: string) => Promise<SecretReader>,
  url: string,
  name: string,
  options: Pick<SecretStoreOptions, "timeoutMs">,
): Promise<string> {
  const client = await getReader(url);
  let secret: Awaited<ReturnType<SecretReader["getSecret"]>>;
  try {
    secret = await client.getSecret(
      name,
      options.timeoutMs === undefined
        ? undefined
        : { abortSignal: AbortSignal.timeout(options.timeoutMs) },
    );
  } catch (error) {
    throw vaultReadError(url, name, error);
  }
  return usableValue(secret, `Secret "${name}" in Key Vault ${vaultHost(url)}`);
}

/** The secret's value, unless it is disabled, empty or too short to keep out of logs. */
function usableValue(
  secret: Awaited<ReturnType<SecretReader["getSecret"]>>,
  where: string,
): string {
  if (secret.properties?.enabled === false) {
    throw new CertschedError("SECRET_UNAVAILABLE", `${where} is disabled`);
  }
  if (!secret.value) throw new CertschedError("SECRET_UNAVAILABLE", `${where} is empty`);
  // As for the direct settings: too short to tell from ordinary text, so it could not be
  // redacted. The message names the secret, never its value.
  if (significantLength(secret.value) < MIN_SECRET_LENGTH) {
    throw new CertschedError(
      "SECRET_UNAVAILABLE",
      `${where} is shorter than ${MIN_SECRET_LENGTH} characters (not counting spaces): certsched refuses secrets it could not keep out of logs`,
    );
  }
  return secret.value;
}
