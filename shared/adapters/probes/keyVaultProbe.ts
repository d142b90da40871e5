import https from "node:https";
import { isIP } from "node:net";
import type { Duplex } from "node:stream";
import type { CertificateClient, CertificateClientOptions } from "@azure/keyvault-certificates";
import { type ConnectToRule, resolveConnectTo } from "../../core/verification/connectTo.js";
import { type AcceptedRenewal, judge } from "../../core/verification/judge.js";
import type { VerifySettings } from "../../core/verification/verifySettings.js";
import { ensureError, isCertschedError } from "../../lib/errors.js";
import { redact } from "../../lib/redact/redact.js";
import { withBoundDetail } from "../../lib/text/boundDetail.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { DAY_MS } from "../../lib/time.js";
import type { InventoryResult } from "../../usecases/steps/verifyInventory.js";
import type { TokenCache } from "../identity/tokenCache.js";
import { tokenCredential, untilAborted } from "../identity/tokenCredential.js";
import { describeCertificate, type ProbeResult } from "./tlsProbe.js";

/**
 * The Key Vault check (issue 12): read the current version of a certificate from the customer's
 * vault, through the real CertificateClient and certsched's own vault token, and judge it like a
 * served certificate. There is no handshake, so no chain or name check: what matters is that the
 * vault's current version is the renewed one, and how long it has left.
 */

/** A certificate to look up, as the inventory knows it. */
export interface KeyVaultTarget {
  readonly keyVaultName: string;
  /** The certificate's name in the vault; `certificateName` when unset. */
  readonly keyVaultCertificateName?: string | undefined;
  /** certsched's (the service's) name for the certificate. */
  readonly certificateName: string;
  readonly renewal?: AcceptedRenewal | undefined;
}

/** Where the tests' fake vault is; production passes nothing. */
export interface KeyVaultSeam {
  /**
   * The URL of vault `keyVaultName`; default `https://{keyVaultName}.vault.azure.net`. When set,
   * CERTSCHED_VERIFY_CONNECT_TO does not apply to the vault: the URL already says where it is.
   */
  readonly vaultUrl?: (keyVaultName: string) => string;
  /** CertificateClient options laid over ours (a fake's `tlsOptions: { ca }`, challenge check off). */
  readonly clientOptions?: CertificateClientOptions;
}

export interface KeyVaultProbeOptions {
  /** certsched's token cache (runtime.tokens): the vault token comes from it. */
  readonly tokens: Pick<TokenCache, "token" | "refused">;
  /** CERTSCHED_VAULT_RESOURCE (settings.vaultResource), e.g. https://vault.azure.net. */
  readonly vaultResource: string;
  /**
   * timeoutMs bounds the whole read: token, connection, SDK retries. connectTo
   * (CERTSCHED_VERIFY_CONNECT_TO) redirects the vault host as it does a TLS probe.
   */
  readonly settings: Pick<VerifySettings, "warnDays" | "windowMs" | "timeoutMs"> &
    Partial<Pick<VerifySettings, "connectTo">>;
  readonly now: () => Date;
  readonly signal?: AbortSignal;
  readonly seam?: KeyVaultSeam;
}

/** What went wrong when no certificate could be read. */
export type KeyVaultFailure =
  | "forbidden"
  | "not-found"
  | "unauthorized"
  | "token"
  | "timeout"
  | "cancelled"
  | "network"
  | "http"
  | "no-certificate"
  | "bad-certificate";

/** One read of the vault: the certificate in tlsProbe's shapes, or why there is none. */
export type KeyVaultRead =
  | (Extract<ProbeResult, { reached: true }> & { readonly version: string | undefined })
  | {
      readonly reached: false;
      readonly failure: KeyVaultFailure;
      /** HTTP status, when the vault answered. */
      readonly status?: number | undefined;
      /** One line for people, redacted and escaped. */
      readonly detail: string;
    };

/** Within the whole read's timeout: a 5xx or a dropped connection is tried again, briefly. */
const RETRY_OPTIONS = { maxRetries: 2, retryDelayInMs: 500, maxRetryDelayInMs: 4_000 } as const;

/** Azure's rule for vault names: 3-24 letters, digits and single hyphens, from a letter. */
const VAULT_NAME = /^(?!.*--)[a-z][a-z0-9-]{1,22}[a-z0-9]$/i;

/** Longest piece of the vault's own message kept in a detail. */
const MAX_MESSAGE = 300;

/** Whether Azure would accept `name` as a vault name; only such a name is put in a host. */
export function isKeyVaultName(name: string): boolean {
  return VAULT_NAME.test(name);
}

/** `https://{name}.vault.azure.net`, the suffix taken from the vault resource (sovereign clouds). */
export function defaultVaultUrl(keyVaultName: string, vaultResource: string): string {
  let suffix = "vault.azure.net";
  try {
    suffix = new URL(vaultResource).hostname || suffix;
  } catch {
    // An unreadable CERTSCHED_VAULT_RESOURCE: the public cloud's suffix.
  }
  return `https://${keyVaultName.toLowerCase()}.${suffix}`;
}

/**
 * CERTSCHED_VERIFY_CONNECT_TO for the vault, as for a TLS probe: each connection goes where the
 * first matching rule says, while SNI and the certificate's name check still use the vault's
 * own host (Node checks the identity against `servername`). Without it a split-DNS user could
 * not reach their vault, and the sandbox would send its vault token to a real Azure host.
 */
class ConnectToAgent extends https.Agent {
  readonly #rules: readonly ConnectToRule[];

  constructor(rules: readonly ConnectToRule[], options: https.AgentOptions) {
    super(options);
    this.#rules = rules;
  }

  override createConnection(
    options: https.RequestOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const host = String(options.host ?? options.hostname ?? "");
    const port = Number(options.port ?? 443);
    const to = resolveConnectTo(this.#rules, host, port);
    // servername was set from the original host by the agent; keep it so, whatever the rule says
    // (an IP address is never sent as SNI, RFC 6066).
    const servername = options.servername || (isIP(host) ? undefined : host);
    return super.createConnection(
      { ...options, host: to.host, port: to.port, ...(servername ? { servername } : {}) },
      callback,
    );
  }
}

/** What the vault's last HTTP answer said about itself (status and headers, never the body). */
interface VaultAnswer {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly location: string | undefined;
}

type OnResponse = NonNullable<
  NonNullable<Parameters<CertificateClient["getCertificate"]>[1]>["onResponse"]
>;

/** Longest content type or Location kept in a detail. */
const MAX_HEADER = 120;

/** A header's value for a detail: one line, bounded, redacted, escaped; "none" when absent. */
function headerText(value: string | undefined): string {
  if (value === undefined || value.trim() === "") return "no content type";
  return escapeControl(redact(value.trim()).slice(0, MAX_HEADER));
}

/**
 * Where a redirect pointed, for people: scheme, host and path only. The query and fragment may
 * carry anything (a token, a session), and are left out.
 */
function locationText(location: string | undefined, base: string): string {
  if (location === undefined || location.trim() === "") return "nowhere (no Location)";
  try {
    const url = new URL(location.trim(), base);
    return escapeControl(redact(`${url.origin}${url.pathname}`).slice(0, MAX_HEADER));
  } catch {
    return "an address that is not a URL";
  }
}

/**
 * An answer the SDK could not turn into a certificate, or a redirect: said as what came back.
 * Undefined for anything else (the SDK's RestError says it better).
 */
function unexpectedAnswer(
  answer: VaultAnswer | undefined,
  where: { vault: string; certificate: string; vaultUrl: string },
): Failed | undefined {
  if (answer === undefined) return undefined;
  const { status } = answer;
  const what = `vault ${where.vault} answered ${status} (${headerText(answer.contentType)}) for certificate ${where.certificate}`;
  if (status >= 200 && status < 300) {
    return {
      reached: false,
      failure: "http",
      status,
      detail: `${what}, which is not a Key Vault certificate: the address does not lead to the vault (a proxy or portal page?)`,
    };
  }
  if (status >= 300 && status < 400) {
    return {
      reached: false,
      failure: "http",
      status,
      detail: `${what}: a redirect to ${locationText(answer.location, where.vaultUrl)}, which certsched does not follow (the vault token would go along); the address does not lead to the vault`,
    };
  }
  return undefined;
}

/**
 * Which certificate a bundle's id names, when it is not the one asked for: "NAME in vault
 * VAULT", escaped and bounded; undefined when it is the one (names compare without case, as Key
 * Vault's do). A vault always answers a read with the certificate's own id; whatever answers
 * with another one's (a proxy, a cache, a forged vault) must not have that certificate's dates
 * reported as this one's. The vault is the host asked, or a host whose first label is the vault
 * name (the same vault under another DNS suffix, as a sovereign cloud or the sandbox names it).
 */
function otherCertificate(
  id: string | undefined,
  asked: { readonly url: URL; readonly vault: string; readonly name: string },
): string | undefined {
  let answered: URL | undefined;
  try {
    answered = id === undefined ? undefined : new URL(id);
  } catch {
    answered = undefined;
  }
  const [collection, name] = answered?.pathname.split("/").slice(1) ?? [];
  const host = answered?.hostname.toLowerCase() ?? "";
  const sameVault =
    answered !== undefined &&
    (answered.host.toLowerCase() === asked.url.host.toLowerCase() ||
      host.split(".")[0] === asked.vault.toLowerCase());
  const sameName =
    collection === "certificates" && name?.toLowerCase() === asked.name.toLowerCase();
  if (sameVault && sameName) return undefined;
  if (answered === undefined) return "(an id that is not a URL)";
  const shown = (text: string) => escapeControl(redact(text)).slice(0, 100);
  return `${shown(name ?? "")} in vault ${shown(host.split(".")[0] ?? "")}`;
}

/** The fields of the SDK's RestError we branch on (it may come from another realm). */
interface RestErrorLike {
  readonly statusCode?: number;
  readonly code?: string;
  readonly details?: {
    error?: { code?: string; message?: string; innerError?: { code?: string } };
  };
}

/** The vault's own words, first line only, shortened, redacted and escaped. */
function vaultMessage(error: RestErrorLike, fallback: string): string {
  // Redacted before it is cut: a token straddling the cut would otherwise leave a piece.
  const text = redact(error.details?.error?.message ?? fallback);
  const line = (text.split(/\r?\n/)[0] ?? "").trim().slice(0, MAX_MESSAGE);
  return escapeControl(line);
}

/** ` ForbiddenByRbac` and the like: the vault's error code, inner code first. */
function vaultCode(error: RestErrorLike): string {
  const codes = [error.details?.error?.code ?? error.code, error.details?.error?.innerError?.code]
    .filter((c): c is string => typeof c === "string" && c !== "")
    .map((c) => escapeControl(c.slice(0, 64)));
  return codes.length > 0 ? ` ${codes.join(", ")}` : "";
}

const DNS_CODES: ReadonlySet<string> = new Set([
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_FAIL",
  "EAI_NONAME",
]);

type Failed = Extract<KeyVaultRead, { reached: false }>;

/** Maps whatever the read threw to a failure the caller can show. Never quotes a token. */
function failure(
  thrown: unknown,
  where: { vault: string; certificate: string; host: string; timeoutMs: number; vaultUrl: string },
  aborted: { timedOut: boolean; cancelled: boolean },
  answer?: VaultAnswer,
): Failed {
  const { vault, certificate, host } = where;
  if (aborted.cancelled) {
    return { reached: false, failure: "cancelled", detail: "the verification was cancelled" };
  }
  if (aborted.timedOut) {
    return {
      reached: false,
      failure: "timeout",
      detail: `no answer from vault ${vault} within ${where.timeoutMs} ms (CERTSCHED_HTTP_TIMEOUT)`,
    };
  }
  if (isCertschedError(thrown)) {
    // Our token source: an AADSTS refusal, no identity, or a challenge for another audience.
    return {
      reached: false,
      failure: "token",
      detail: `no vault token for vault ${vault}: ${escapeControl(redact(thrown.message))}`,
    };
  }
  const unexpected = unexpectedAnswer(answer, where);
  if (unexpected !== undefined) return unexpected;
  const error = thrown as RestErrorLike;
  const err = ensureError(thrown);
  const status = typeof error.statusCode === "number" ? error.statusCode : undefined;
  const code = vaultCode(error);
  switch (status) {
    case 403:
      return {
        reached: false,
        failure: "forbidden",
        status,
        detail: `vault ${vault} refused to read certificate ${certificate} (403${code}): the app's identity may not read certificates in vault ${vault}: grant Key Vault Certificate User on the vault (or, with access policies, the certificate Get permission)`,
      };
    case 404:
      return {
        reached: false,
        failure: "not-found",
        status,
        detail: `vault ${vault} holds no certificate named ${certificate} (404${code}): check keyVaultCertificateName, and whether the certificate was deleted`,
      };
    case 401:
      return {
        reached: false,
        failure: "unauthorized",
        status,
        detail: `vault ${vault} refused certsched's vault token (401${code}): ${vaultMessage(error, err.message)}`,
      };
    case undefined:
      break;
    default:
      return {
        reached: false,
        failure: "http",
        status,
        detail: `vault ${vault} answered ${status}${code} for certificate ${certificate}: ${vaultMessage(error, err.message)}`,
      };
  }
  const netCode = typeof error.code === "string" ? escapeControl(error.code.slice(0, 64)) : "";
  if (DNS_CODES.has(netCode)) {
    return {
      reached: false,
      failure: "network",
      detail: `cannot resolve ${host} (${netCode}): check keyVaultName`,
    };
  }
  const first = escapeControl((redact(err.message).split(/\r?\n/)[0] ?? "").slice(0, MAX_MESSAGE));
  return {
    reached: false,
    failure: "network",
    detail: `cannot read from vault ${vault} at ${host}${netCode ? ` (${netCode})` : ""}: ${first}`,
  };
}

/**
 * Reads the current version of the certificate. Never throws for anything the vault, the
 * network or the token source does; gives up after `settings.timeoutMs`. Not exported: the
 * vault name must be checked first (probeKeyVault), as it becomes part of the host.
 */
async function readKeyVaultCertificate(
  target: KeyVaultTarget,
  options: KeyVaultProbeOptions,
): Promise<KeyVaultRead> {
  const vault = escapeControl(target.keyVaultName);
  const name = target.keyVaultCertificateName || target.certificateName;
  const certificate = escapeControl(name);
  const vaultUrl =
    options.seam?.vaultUrl?.(target.keyVaultName) ??
    defaultVaultUrl(target.keyVaultName, options.vaultResource);
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
  const timeout = AbortSignal.timeout(options.settings.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const where = { vault, certificate, host, timeoutMs: options.settings.timeoutMs, vaultUrl };
  const aborted = () => ({
    timedOut: timeout.aborted,
    cancelled: options.signal?.aborted === true,
  });

  const attempt = async () => {
    // Loaded on first use: a function app that never checks a vault does not pay for the SDK.
    const { CertificateClient } = await import("@azure/keyvault-certificates");
    const credential = tokenCredential(options.tokens, options.vaultResource);
    // A client per read: its token cycler must not keep a token the cache has since dropped.
    const clientOptions: CertificateClientOptions = {
      retryOptions: RETRY_OPTIONS,
      ...options.seam?.clientOptions,
      // A vault never redirects a certificate read; whatever does (a proxy, a portal) would get
      // the vault token along with the next request. Reported, not followed.
      redirectOptions: { maxRetries: 0 },
    };
    // An agent of a request is used as it is, without the client's tlsOptions: it takes them.
    const agent = redirected
      ? new ConnectToAgent(rules, { keepAlive: false, ...clientOptions.tlsOptions })
      : undefined;
    const client = new CertificateClient(
      vaultUrl,
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
    try {
      return { bundle: await client.getCertificate(name, { abortSignal: signal, onResponse }) };
    } catch (error) {
      return { error, refusedToken: credential.lastToken, answer };
    } finally {
      agent?.destroy();
    }
  };

  let outcome: Awaited<ReturnType<typeof attempt>>;
  try {
    outcome = await untilAborted(attempt(), signal);
    // A 401 to a token the cache still held: the cache drops it, and one more try gets a fresh one.
    if (
      "error" in outcome &&
      (outcome.error as RestErrorLike).statusCode === 401 &&
      outcome.refusedToken !== undefined &&
      options.tokens.refused(options.vaultResource, outcome.refusedToken)
    ) {
      outcome = await untilAborted(attempt(), signal);
    }
  } catch (error) {
    outcome = { error, refusedToken: undefined, answer: undefined };
  }
  if ("error" in outcome) return failure(outcome.error, where, aborted(), outcome.answer);

  const { bundle } = outcome;
  const other = otherCertificate(bundle.properties.id, { url, vault: target.keyVaultName, name });
  if (other !== undefined) {
    return {
      reached: false,
      failure: "http",
      status: 200,
      detail: `vault ${vault} answered for certificate ${certificate} with the record of another certificate (${other}): it is not read as this one's`,
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
      connectedTo,
      certificate: describeCertificate(bundle.cer),
      chainProblem: undefined,
      nameProblem: undefined,
      version: bundle.properties.version,
    };
  } catch (error) {
    return {
      reached: false,
      failure: "bad-certificate",
      detail: `vault ${vault} holds a certificate ${certificate} that cannot be read: ${escapeControl(ensureError(error).message.slice(0, MAX_MESSAGE))}`,
    };
  }
}

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;

/**
 * Checks one vault certificate: `{vault}/{certificate}`, source `keyvault`, judged by the same
 * chain of checks as a served certificate (expired, pending / not-landed against an accepted
 * renewal, expiring, ok); `unreachable` when it cannot be read, `unverifiable` for a vault name
 * Azure would never accept (it would become part of the host the vault token is sent to).
 */
export async function probeKeyVault(
  target: KeyVaultTarget,
  options: KeyVaultProbeOptions,
): Promise<InventoryResult & { readonly source: "keyvault" }> {
  const vaultCertificate = target.keyVaultCertificateName || target.certificateName;
  const domain = escapeControl(`${target.keyVaultName}/${vaultCertificate}`);
  const base = { domain, certificateName: target.certificateName, source: "keyvault" as const };
  if (!isKeyVaultName(target.keyVaultName)) {
    return {
      ...base,
      status: "unverifiable",
      detail: `"${domain}" does not name a Key Vault: a vault name is 3-24 letters, digits and single hyphens, starting with a letter`,
    };
  }
  const read = await readKeyVaultCertificate(target, options);
  if (!read.reached) {
    return withBoundDetail({ ...base, status: "unreachable" as const, detail: read.detail });
  }

  // The clock is read after the read: daysLeft is about the moment the certificate was seen.
  const now = options.now();
  const verdict = judge({ host: domain, port: 443 }, read, {
    now,
    warnDays: options.settings.warnDays,
    windowMs: options.settings.windowMs,
    renewal: target.renewal,
  });
  const { critical, ...rest } = verdict;
  const days = Math.floor((read.certificate.notAfter.getTime() - now.getTime()) / DAY_MS);
  const detail =
    verdict.status === "ok"
      ? `the vault's current version has ${plural(days, "day")} left (expires ${read.certificate.notAfter.toISOString()})`
      : verdict.detail.replace("the certificate served", "the vault's current version");
  return withBoundDetail({
    ...base,
    ...rest,
    detail,
    ...(critical ? { critical: true as const } : {}),
  });
}
