import type { TokenCredential } from "@azure/identity";
import type { CertificateClientOptions, KeyVaultCertificate } from "@azure/keyvault-certificates";
import type {
  KeyVaultRead,
  KeyVaultReadOptions,
  VaultCertificate,
} from "../../core/ports/probes.js";
import { type ConnectToRule, resolveConnectTo } from "../../core/verification/connectTo.js";
import { defaultVaultUrl } from "../../core/verification/keyVaultName.js";
import { untilAborted } from "../../lib/abort.js";
import { ensureError } from "../../lib/errors.js";
import { boundedAnswerPolicy } from "../../lib/http/boundedAnswerPolicy.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { ConnectToAgent } from "./connectToAgent.js";
import {
  failure,
  MAX_MESSAGE,
  type OnResponse,
  otherCertificate,
  type RestErrorLike,
  type VaultAnswer,
} from "./keyVaultFailure.js";
import { describeCertificate } from "./tlsProbe.js";

/**
 * The Key Vault read: the current version of a certificate from the customer's vault, or the
 * version a Key Vault event names, through the real CertificateClient and certsched's own vault
 * token (core/verification/vaultVerdict.ts judges it like a served certificate).
 */

/**
 * certsched's vault token for the SDK, wired by the composition (shared/app/probes.ts) from the
 * token cache: never a second login of the SDK's own.
 */
export interface VaultCredentials {
  /** CERTSCHED_VAULT_RESOURCE (settings.vaultResource), e.g. https://vault.azure.net. */
  readonly resource: string;
  /**
   * A TokenCredential for `resource` only, made per read (a client's token cycler must not keep
   * a token the cache has since dropped); `lastToken` is the last token it handed out.
   */
  credential(): TokenCredential & { readonly lastToken: string | undefined };
  /** The vault refused `token` (401): true when the next token replaces it (one more try). */
  refused(token: string): boolean;
}

/**
 * Longest body read of one vault answer. A certificate bundle is a few KiB (its DER in base64,
 * the policy, the attributes); a body longer than 1 MiB is not one, and is not read whole.
 */
export const MAX_VAULT_ANSWER_BYTES = 1024 * 1024;

/** Within the whole read's timeout: a 5xx or a dropped connection is tried again, briefly. */
const RETRY_OPTIONS = { maxRetries: 2, retryDelayInMs: 500, maxRetryDelayInMs: 4_000 } as const;

/** Where one read goes: the vault and the certificate, as named in messages, and how. */
interface VaultPlace {
  /** The vault's name, escaped for messages. */
  readonly vault: string;
  /** The certificate's name in the vault. */
  readonly name: string;
  /** `name`, escaped for messages. */
  readonly certificate: string;
  readonly vaultUrl: string;
  readonly url: URL;
  readonly host: string;
  /** The connect-to rules that apply to this read. */
  readonly rules: readonly ConnectToRule[];
  /** Whether a rule sends the connection somewhere else than the vault's own host. */
  readonly redirected: boolean;
  /** Where the connection goes, as reported. */
  readonly connectedTo: string;
}

type ReadOptions = KeyVaultReadOptions & { readonly vault: VaultCredentials };

/**
 * What a Key Vault certificate version looks like: 32 hex digits in Azure; letters, digits and
 * dashes up to 64 are taken (a fake or a sovereign cloud may differ), nothing that could change
 * the request's path.
 */
const VERSION = /^[0-9A-Za-z-]{1,64}$/;

/** What one try gave: the bundle, or the error with the token refused and the last answer. */
type Attempt =
  | { readonly bundle: KeyVaultCertificate }
  | {
      readonly error: unknown;
      readonly refusedToken: string | undefined;
      readonly answer: VaultAnswer | undefined;
    };

/**
 * Reads the current version of the certificate, or `options.version` when set. Never throws for
 * anything the vault, the network or the token source does; gives up after `settings.timeoutMs`.
 * The vault name must be checked first (core/verification/keyVaultName.ts), as it becomes part
 * of the host.
 */
export async function readKeyVaultCertificate(
  target: VaultCertificate,
  options: ReadOptions,
): Promise<KeyVaultRead> {
  const place = vaultPlace(target, options);
  const { version } = options;
  if (version !== undefined && !VERSION.test(version)) return noSuchVersion(place, version);
  const timeout = AbortSignal.timeout(options.settings.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const where = {
    vault: place.vault,
    certificate: place.certificate,
    host: place.host,
    timeoutMs: options.settings.timeoutMs,
    vaultUrl: place.vaultUrl,
  };
  const aborted = () => ({
    timedOut: timeout.aborted,
    cancelled: options.signal?.aborted === true,
  });
  const outcome = await withFreshToken(() => attempt(place, options, signal), signal, options);
  if ("error" in outcome) {
    const failed = failure(outcome.error, where, aborted(), outcome.answer);
    return version !== undefined && failed.failure === "not-found"
      ? noSuchVersion(place, version, failed.status)
      : failed;
  }
  return readOf(outcome.bundle, place, target.keyVaultName, version);
}

/** A version the vault does not hold (or that cannot be one): `not-found`, naming it. */
function noSuchVersion(place: VaultPlace, version: string, status?: number): KeyVaultRead {
  const shown = escapeControl(version.slice(0, 100));
  const why = status === undefined ? "not a Key Vault version" : String(status);
  const detail = `vault ${place.vault} holds no version ${shown} of certificate ${place.certificate} (${why}): the version was deleted, or never was this certificate's`;
  return { reached: false, failure: "not-found", ...(status ? { status } : {}), detail };
}

/** Where the read of `target` goes: its vault's URL, and whether a connect-to rule moves it. */
function vaultPlace(target: VaultCertificate, options: ReadOptions): VaultPlace {
  const vault = escapeControl(target.keyVaultName);
  const name = target.keyVaultCertificateName || target.certificateName;
  const certificate = escapeControl(name);
  const vaultUrl =
    options.seam?.vaultUrl?.(target.keyVaultName) ??
    defaultVaultUrl(target.keyVaultName, options.vault.resource);
  const url = new URL(vaultUrl);
  const host = url.host;
  // A seam's vaultUrl already says where the (test's) vault is: connect-to is for the vault's
  // own host, `{vault}.vault.azure.net`, as production always has it.
  const rules = options.seam?.vaultUrl ? [] : (options.settings.connectTo ?? []);
  const to = resolveConnectTo(rules, url.hostname, Number(url.port || 443));
  // Only when a rule redirects the vault: the SDK's own connection handling otherwise.
  const redirected = to.host !== url.hostname.toLowerCase() || to.port !== Number(url.port || 443);
  const connectedTo = redirected
    ? `${to.host.includes(":") ? `[${to.host}]` : to.host}:${to.port}`
    : host;
  return { vault, name, certificate, vaultUrl, url, host, rules, redirected, connectedTo };
}

/**
 * The read, and once more when the vault refused (401) a token the cache still held: the cache
 * drops it, and the second try gets a fresh one. A read cut off by `signal` is its error.
 */
async function withFreshToken(
  read: () => Promise<Attempt>,
  signal: AbortSignal,
  options: ReadOptions,
): Promise<Attempt> {
  let outcome: Attempt;
  try {
    outcome = await untilAborted(read(), signal);
    if (
      "error" in outcome &&
      (outcome.error as RestErrorLike).statusCode === 401 &&
      outcome.refusedToken !== undefined &&
      options.vault.refused(outcome.refusedToken)
    ) {
      outcome = await untilAborted(read(), signal);
    }
  } catch (error) {
    outcome = { error, refusedToken: undefined, answer: undefined };
  }
  return outcome;
}

/** One try: a client of its own, one GET of the certificate (its current version, or the one asked). */
async function attempt(
  place: VaultPlace,
  options: ReadOptions,
  signal: AbortSignal,
): Promise<Attempt> {
  // Loaded on first use: a function app that never checks a vault does not pay for the SDK.
  const { CertificateClient } = await import("@azure/keyvault-certificates");
  const credential = options.vault.credential();
  // A client per read: its token cycler must not keep a token the cache has since dropped.
  const clientOptions = clientOptionsOf(options);
  // An agent of a request is used as it is, without the client's tlsOptions: it takes them.
  const agent = place.redirected
    ? new ConnectToAgent(place.rules, { keepAlive: false, ...clientOptions.tlsOptions })
    : undefined;
  const client = new CertificateClient(
    place.vaultUrl,
    credential,
    agent ? { ...clientOptions, agent } : clientOptions,
  );
  // The last answer's status and headers, kept for the detail: when the SDK cannot read an
  // answer (an HTML page with a 200) it throws its own TypeError, which says nothing useful.
  let answer: VaultAnswer | undefined;
  const onResponse: OnResponse = (raw) => {
    answer = {
      status: raw.status,
      contentType: raw.headers.get("content-type"),
      location: raw.headers.get("location"),
    };
  };
  const request = { abortSignal: signal, onResponse };
  try {
    return {
      bundle:
        options.version === undefined
          ? await client.getCertificate(place.name, request)
          : await client.getCertificateVersion(place.name, options.version, request),
    };
  } catch (error) {
    return { error, refusedToken: credential.lastToken, answer };
  } finally {
    agent?.destroy();
  }
}

/** The client's options: a few quick retries, no redirects, each answer's body bounded. */
function clientOptionsOf(options: ReadOptions): CertificateClientOptions {
  const seamOptions = options.seam?.clientOptions as CertificateClientOptions | undefined;
  return {
    retryOptions: RETRY_OPTIONS,
    ...seamOptions,
    // A vault never redirects a certificate read; whatever does (a proxy, a portal) would get
    // the vault token along with the next request. Reported, not followed.
    redirectOptions: { maxRetries: 0 },
    // Below the SDK's parsing: each answer's body is cut at the bound before it is read whole.
    additionalPolicies: [
      ...(seamOptions?.additionalPolicies ?? []),
      { policy: boundedAnswerPolicy(MAX_VAULT_ANSWER_BYTES), position: "perRetry" },
    ],
  };
}

/** The read of what the vault answered: its certificate, or why it is not this one's. */
function readOf(
  bundle: KeyVaultCertificate,
  place: VaultPlace,
  keyVaultName: string,
  version: string | undefined,
): KeyVaultRead {
  const { vault, certificate, url, name } = place;
  const other = otherCertificate(bundle.properties.id, { url, vault: keyVaultName, name });
  if (other !== undefined) {
    return {
      reached: false,
      failure: "http",
      status: 200,
      detail: `vault ${vault} answered for certificate ${certificate} with the record of another certificate (${other}): it is not read as this one's`,
    };
  }
  // Versions compare without case, as Key Vault's do.
  if (version !== undefined && bundle.properties.version?.toLowerCase() !== version.toLowerCase()) {
    return {
      reached: false,
      failure: "http",
      status: 200,
      detail: `vault ${vault} answered for version ${escapeControl(version.slice(0, 100))} of certificate ${certificate} with another version (${escapeControl(String(bundle.properties.version).slice(0, 100))}): it is not read as the one asked`,
    };
  }
  if (!bundle.cer || bundle.cer.length === 0) {
    return {
      reached: false,
      failure: "no-certificate",
      detail: `vault ${vault} holds certificate ${certificate} but no issued version of it yet`,
    };
  }
  try {
    return {
      reached: true,
      connectedTo: place.connectedTo,
      certificate: describeCertificate(bundle.cer),
      chainProblem: undefined,
      nameProblem: undefined,
      version: bundle.properties.version,
      createdOn: bundle.properties.createdOn,
    };
  } catch (error) {
    return {
      reached: false,
      failure: "bad-certificate",
      detail: `vault ${vault} holds a certificate ${certificate} that cannot be read: ${escapeControl(ensureError(error).message.slice(0, MAX_MESSAGE))}`,
    };
  }
}
