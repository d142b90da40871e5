import type { CertificateClient } from "@azure/keyvault-certificates";
import type { KeyVaultRead } from "../../core/ports/probes.js";
import { ensureError, isCertschedError } from "../../lib/errors.js";
import { isAnswerTooLarge, sizeText } from "../../lib/http/boundedAnswerPolicy.js";
import { redact } from "../../lib/redact/redact.js";
import { escapeControl } from "../../lib/text/escapeControl.js";

/**
 * What a failed vault read says (adapters/probes/keyVaultProbe.ts): the SDK's error, an
 * answer that is no certificate, or another certificate's record, in one line for people.
 */

/** Longest piece of the vault's own message kept in a detail. */
export const MAX_MESSAGE = 300;

/** What the vault's last HTTP answer said about itself (status and headers, never the body). */
export interface VaultAnswer {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly location: string | undefined;
}

export type OnResponse = NonNullable<
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
export function otherCertificate(
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
export interface RestErrorLike {
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

export type Failed = Extract<KeyVaultRead, { reached: false }>;

/** Maps whatever the read threw to a failure the caller can show. Never quotes a token. */
export function failure(
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
        detail: isAnswerTooLarge(thrown)
          ? `vault ${vault}'s answer (${status}) for certificate ${certificate} is longer than ${sizeText(thrown.limitBytes)}, which is not a Key Vault certificate; certsched reads at most that of one answer`
          : `vault ${vault} answered ${status}${code} for certificate ${certificate}: ${vaultMessage(error, err.message)}`,
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
