import type { Agent } from "node:https";
import type { TokenCredential } from "@azure/identity";
import type {
  CertificateClient,
  CertificateClientOptions,
  CertificatePolicy,
  CertificateProperties,
} from "@azure/keyvault-certificates";
import type { EstateCertificate, EstateProblem } from "../../core/estate/estate.js";
import { MAX_ESTATE_TEXT, MAX_HOST_NAMES } from "../../core/estate/estate.js";
import { hostNameOf, instantOf, thumbprintOf } from "../../core/estate/normalize.js";
import type { VaultCertificateLister, VaultListing, VaultRef } from "../../core/ports/estate.js";
import { untilAborted } from "../../lib/abort.js";
import { ensureError } from "../../lib/errors.js";
import { boundedAnswerPolicy } from "../../lib/http/boundedAnswerPolicy.js";
import { mapWithConcurrency } from "../../lib/pool.js";
import { redact } from "../../lib/redact/redact.js";
import { boundDetail } from "../../lib/text/boundDetail.js";

/**
 * A vault's certificates for the estate: its own list (listPropertiesOfCertificates, paged) and
 * each one's policy (auto-renewal, issuer, subject, SANs), through the real CertificateClient and
 * the account's vault token. Bounded in time, pages, certificates and bytes; a vault that
 * refuses (403) or cannot be reached is its own problem, never the report's.
 */
export interface VaultListerOptions {
  /** The account's vault token (resource CERTSCHED_VAULT_RESOURCE), as the vault probe gets it. */
  readonly credential: TokenCredential;
  /** Where a vault is: https://{name}.vault.azure.net in Azure; the simulator's URL in tests. */
  readonly vaultUrlOf: (vault: VaultRef) => string;
  /** Bounds one vault's whole listing (token, pages, policies). */
  readonly timeoutMs: number;
  /** Certificates read of one vault; the rest are counted in `truncated`. */
  readonly maxCertificates?: number | undefined;
  /** The SDK's options laid over ours (a fake vault's `tlsOptions: { ca }`). */
  readonly clientOptions?: CertificateClientOptions | undefined;
  /**
   * The agent a vault's connections go through, made per listing and destroyed after it (the
   * composition's: CERTSCHED_VERIFY_CONNECT_TO moves a vault's host in the sandbox or split DNS);
   * undefined: the SDK's own.
   */
  readonly agent?: ((tlsOptions: object | undefined) => Agent | undefined) | undefined;
}

/** Certificates read of one vault by default (Key Vault allows 25 a page: 200 pages). */
export const MAX_VAULT_CERTIFICATES = 5_000;
/** Longest answer read of one page or policy. */
export const MAX_LIST_ANSWER_BYTES = 1024 * 1024;
/** Policies read at once within one vault. */
export const POLICY_CONCURRENCY = 4;

/** A Key Vault's name: 3 to 24 letters, digits and hyphens (checked before it becomes a host). */
const VAULT_NAME = /^[a-z0-9-]{3,24}$/i;

const RETRY_OPTIONS = { maxRetries: 2, retryDelayInMs: 500, maxRetryDelayInMs: 4_000 } as const;

export function createVaultCertificateLister(options: VaultListerOptions): VaultCertificateLister {
  return { list: (vault, signal) => listVault(vault, options, signal) };
}

async function listVault(
  vault: VaultRef,
  options: VaultListerOptions,
  outer: AbortSignal | undefined,
): Promise<VaultListing> {
  if (!VAULT_NAME.test(vault.name)) {
    return { certificates: [], truncated: 0, problem: problemOf(vault, "not a Key Vault name") };
  }
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = outer ? AbortSignal.any([outer, timeout]) : timeout;
  const { client, close } = await clientFor(vault, options);
  const timedOut = () => (timeout.aborted ? `no answer within ${options.timeoutMs} ms` : undefined);
  try {
    // The SDK's own abort does not end a connection that never finishes its handshake.
    return await untilAborted(readVault(client, vault, options, signal, timedOut), signal);
  } catch (error) {
    const why = timedOut() ?? failureOf(error).problem;
    return { certificates: [], truncated: 0, problem: problemOf(vault, why) };
  } finally {
    close();
  }
}

async function readVault(
  client: CertificateClient,
  vault: VaultRef,
  options: VaultListerOptions,
  signal: AbortSignal,
  timedOut: () => string | undefined,
): Promise<VaultListing> {
  const listed = await listProperties(client, options.maxCertificates, signal);
  if ("problem" in listed) {
    const why = timedOut() ?? listed.problem;
    return { certificates: [], truncated: 0, problem: problemOf(vault, why, listed.status) };
  }
  const certificates = await mapWithConcurrency(listed.items, POLICY_CONCURRENCY, (item) =>
    withPolicy(client, vault, item, signal),
  );
  return { certificates, truncated: listed.truncated };
}

async function clientFor(vault: VaultRef, options: VaultListerOptions) {
  const { CertificateClient } = await import("@azure/keyvault-certificates");
  const url = new URL(options.vaultUrlOf(vault));
  const seam = options.clientOptions;
  const agent = options.agent?.(seam?.tlsOptions);
  const client = new CertificateClient(url.origin, options.credential, {
    retryOptions: RETRY_OPTIONS,
    ...seam,
    ...(agent ? { agent } : {}),
    redirectOptions: { maxRetries: 0 },
    additionalPolicies: [
      ...(seam?.additionalPolicies ?? []),
      { policy: boundedAnswerPolicy(MAX_LIST_ANSWER_BYTES), position: "perRetry" },
    ],
  });
  return { client, close: () => agent?.destroy() };
}

type Listed =
  | { readonly items: CertificateProperties[]; readonly truncated: number }
  | { readonly problem: string; readonly status?: number | undefined };

/** The vault's list, page by page, until it ends or `max` certificates were read. */
async function listProperties(
  client: CertificateClient,
  max = MAX_VAULT_CERTIFICATES,
  signal: AbortSignal,
): Promise<Listed> {
  const items: CertificateProperties[] = [];
  try {
    const pages = client.listPropertiesOfCertificates({ abortSignal: signal }).byPage();
    for await (const page of pages) {
      items.push(...page);
      // Past the bound, no further page is asked: a vault whose pages never end stops here.
      if (items.length > max) break;
    }
    // What the pages read held beyond the bound (at least one: there was more).
    return { items: items.slice(0, max), truncated: Math.max(0, items.length - max) };
  } catch (error) {
    return failureOf(error);
  }
}

function failureOf(error: unknown): { problem: string; status?: number | undefined } {
  const e = ensureError(error) as Error & { statusCode?: unknown; code?: unknown };
  const status = typeof e.statusCode === "number" ? e.statusCode : undefined;
  if (status === 401 || status === 403) {
    const role = "the account's identity needs Key Vault Reader on it to list its certificates";
    return { problem: `refused (${status}): ${role}`, status };
  }
  const code = typeof e.code === "string" ? ` (${e.code})` : "";
  const first = e.message.split("\n")[0] ?? "";
  return { problem: `could not be listed${code}: ${first}`, ...(status ? { status } : {}) };
}

function problemOf(vault: VaultRef, why: string, status?: number): EstateProblem {
  const detail = boundDetail(redact(`vault ${vault.name}: ${why}`), 500);
  return { where: `vault ${boundDetail(vault.name, 100)}`, detail, status };
}

/** One listed certificate with what its policy adds; a policy not read is its problem alone. */
async function withPolicy(
  client: CertificateClient,
  vault: VaultRef,
  item: CertificateProperties,
  signal: AbortSignal,
): Promise<EstateCertificate> {
  const base = certificateOf(vault, item);
  try {
    const policy = await client.getCertificatePolicy(item.name ?? "", { abortSignal: signal });
    return { ...base, ...policyFacts(policy) };
  } catch (error) {
    const why = failureOf(error).problem;
    return { ...base, problems: [...base.problems, boundDetail(redact(`policy: ${why}`), 300)] };
  }
}

const text = (value: unknown) =>
  typeof value === "string" && value !== "" ? boundDetail(value, MAX_ESTATE_TEXT) : undefined;

function certificateOf(vault: VaultRef, item: CertificateProperties): EstateCertificate {
  const name = String(item.name ?? "").toLowerCase();
  const thumbprint = item.x509Thumbprint
    ? thumbprintOf(Buffer.from(item.x509Thumbprint).toString("hex"))
    : undefined;
  const problems = item.enabled === false ? ["disabled in its vault"] : [];
  return {
    id: `https://${vault.name}.vault.azure.net/certificates/${encodeURIComponent(name)}`,
    kind: "key-vault",
    name: boundDetail(name, MAX_ESTATE_TEXT),
    subscriptionId: vault.subscriptionId,
    resourceGroup: vault.resourceGroup,
    thumbprint,
    notBefore: instantOf(item.notBefore),
    expiresAt: instantOf(item.expiresOn),
    hostNames: [],
    moreHostNames: 0,
    boundTo: [],
    problems,
  };
}

/** Auto-renewal, issuer, subject and the names the policy asks for. */
function policyFacts(policy: CertificatePolicy): Partial<EstateCertificate> {
  const actions = policy.lifetimeActions ?? [];
  const autoRenew =
    actions.length === 0 ? undefined : actions.some((a) => a.action === "AutoRenew");
  const subject = text(policy.subject);
  const cn = /(?:^|,)\s*CN=([^,]+)/i.exec(policy.subject ?? "")?.[1];
  const names = [...(policy.subjectAlternativeNames?.dnsNames ?? []), ...(cn ? [cn] : [])]
    .map(hostNameOf)
    .filter((n): n is string => n !== undefined);
  const unique = [...new Set(names)];
  return {
    autoRenew,
    issuer: text(policy.issuerName),
    subject,
    hostNames: unique.slice(0, MAX_HOST_NAMES),
    moreHostNames: Math.max(0, unique.length - MAX_HOST_NAMES),
  };
}
