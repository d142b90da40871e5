import { type CertificateRecord, certificateRecord } from "../../core/certificate/records.js";
import type { DueList, RejectedRecord } from "../../core/ports/service.js";
import {
  type ErrorCode,
  type Problem,
  UpstreamError,
  type UpstreamName,
} from "../../lib/errors.js";
import type { InboundResponse } from "../../lib/http/attempt.js";
import { responseDetail } from "../../lib/http/responseDetail.js";
import { redactRecordStrings } from "../../lib/redact/redactStrings.js";
import { toProblems } from "../../lib/zodProblems.js";

/** How each operation is named in messages a person reads. */
export const OPERATION_LABEL: Readonly<Record<UpstreamName, string>> = {
  create: "create certificate",
  renew: "renew certificate (v3)",
  list: "list certificates due for renewal",
  publicRenew: "renew certificate",
  test: "connectivity test",
  get: "get certificate",
  token: "get cloud token",
  keyVault: "read Key Vault secret",
  ledger: "renewal ledger",
  webhook: "notification webhook",
  ari: "renewal information (ARI)",
  ct: "Certificate Transparency search",
};

function codeFor(status: number): ErrorCode {
  if (status === 400) return "UPSTREAM_REJECTED";
  if (status === 401 || status === 403) return "UPSTREAM_UNAUTHORIZED";
  return "UPSTREAM_FAILED";
}

/** A non-2xx answer as an UpstreamError: status, and the upstream's own words, cleaned. */
export function statusError(upstream: UpstreamName, res: InboundResponse): UpstreamError {
  const detail = responseDetail(res.text, res.contentType);
  const why =
    res.status === 401 || res.status === 403
      ? " (the service refused certsched's credentials)"
      : "";
  return new UpstreamError(
    codeFor(res.status),
    upstream,
    `${OPERATION_LABEL[upstream]} failed: the service answered ${res.status}${why}${
      detail ? `: ${detail}` : ""
    }`,
    { status: res.status, detail, retriable: res.status === 429 || res.status >= 500 },
  );
}

/**
 * Longest confirmation accepted as the service's own, in UTF-8 bytes. The service answers one
 * sentence that may quote the certificate name ("Certificate x is scheduled for creation."); the
 * longest name certsched sends (MAX_FIELD_LENGTH, 1,024 characters of up to 4 bytes each) fits in
 * 8 KiB with room to spare. Anything longer is not a sentence.
 */
export const MAX_CONFIRMATION_BYTES = 8 * 1024;

/**
 * A body that begins with a tag is a page (a proxy's or gateway's), whatever its content type.
 * Only the beginning counts: the service's sentence may quote a name holding "<" anywhere.
 */
const PAGE_START = /^\s*</;

/**
 * The media type alone, lower-cased ("text/plain; charset=utf-8" -> "text/plain"), shortened
 * and reduced to printable ASCII: it is quoted in messages, and it is the upstream's text.
 */
function mediaType(contentType: string | undefined): string | undefined {
  const type = contentType
    ?.split(";")[0]
    ?.trim()
    .toLowerCase()
    .replace(/[^\x21-\x7e]/g, "?")
    .slice(0, 100);
  return type === "" ? undefined : type;
}

/**
 * Why a 2xx is not the plain-text confirmation the spec promises (4.1, 4.2, 4.4, 4.5), or
 * undefined when it is: text/plain or no content type, at most MAX_CONFIRMATION_BYTES, and not
 * a page. A proxy's or gateway's block page answers 200 too; counting it as "scheduled" would
 * hide a renewal that never reached the service. Control characters are not a reason: the
 * sentence may quote a name the caller chose; whoever prints it escapes them.
 */
export function implausibleConfirmation(res: InboundResponse): string | undefined {
  const type = mediaType(res.contentType);
  if (type !== undefined && type !== "text/plain") return `content type ${type}`;
  const bytes = Buffer.byteLength(res.text);
  if (bytes > MAX_CONFIRMATION_BYTES) {
    return `${bytes} bytes of text, more than the ${MAX_CONFIRMATION_BYTES} a confirmation holds`;
  }
  if (PAGE_START.test(res.text)) return "markup";
  return undefined;
}

/**
 * A 2xx we cannot take for the service's answer: status, content type and, for a page, its
 * title. Never the body: it is not the service's, and may be anything.
 */
function badSuccess(
  upstream: UpstreamName,
  res: InboundResponse,
  why: string,
  expected: string,
): UpstreamError {
  const page = isHtml(res) || PAGE_START.test(res.text);
  const title = page ? responseDetail(res.text, "text/html") : undefined;
  const type = mediaType(res.contentType);
  const typed = why.startsWith("content type") ? why : `${why} (content type ${type ?? "none"})`;
  return new UpstreamError(
    "UPSTREAM_BAD_RESPONSE",
    upstream,
    `${OPERATION_LABEL[upstream]} failed: the service answered ${res.status} with ${typed}${
      title ? `: ${title}` : ""
    }, not ${expected}`,
    { status: res.status, ...(title ? { detail: title } : {}) },
  );
}

/** Create, renew and test answer 200 with plain text (spec 4.1-4.5): keep it as text. */
export function plainText(upstream: UpstreamName, res: InboundResponse): string {
  if (res.status < 200 || res.status >= 300) throw statusError(upstream, res);
  const why = implausibleConfirmation(res);
  if (why !== undefined) {
    throw badSuccess(upstream, res, why, "the plain-text confirmation the service sends");
  }
  return res.text;
}

/** An HTML page (a gateway's, a proxy's): never an answer of the service's (spec 7). */
export function isHtml(res: InboundResponse): boolean {
  return /html/i.test(res.contentType ?? "") || /^\s*<(!doctype|html)/i.test(res.text);
}

/** The list's 200 is JSON (spec 4.3): application/json (any charset), a +json type, or none. */
function isJsonType(contentType: string | undefined): boolean {
  const type = mediaType(contentType);
  return (
    type === undefined || type === "application/json" || /^application\/[\w.-]+\+json$/.test(type)
  );
}

/**
 * The list's 200 (spec 4.3): a JSON array of records. Any other status is an error here, 404
 * included: whether a 404 means "nothing due" is for the caller to confirm (ServiceClient.listDue).
 * Records are validated one by one, so one malformed record does not hide the others.
 */
export function dueList(res: InboundResponse): DueList {
  if (res.status < 200 || res.status >= 300) throw statusError("list", res);
  if (!isJsonType(res.contentType)) {
    const type = mediaType(res.contentType);
    throw badSuccess("list", res, `content type ${type}`, "the JSON array the service sends");
  }
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    throw new UpstreamError(
      "UPSTREAM_BAD_RESPONSE",
      "list",
      `${OPERATION_LABEL.list} failed: the service answered ${res.status} with malformed JSON`,
      { status: res.status, retriable: true },
    );
  }
  if (!Array.isArray(body)) {
    throw new UpstreamError(
      "UPSTREAM_BAD_RESPONSE",
      "list",
      `${OPERATION_LABEL.list} failed: the service answered ${res.status} with JSON that is not an array`,
      { status: res.status },
    );
  }
  const certificates: CertificateRecord[] = [];
  const rejected: RejectedRecord[] = [];
  const items: unknown[] = body;
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    // Each raw record is let go once validated, so the collector can reclaim it while the list
    // is still being read: raw and validated copies of every record are never all alive at once.
    items[index] = undefined;
    const entered = enteredRecord(item);
    if (!entered.ok) {
      rejected.push({
        index,
        certificateName: undefined,
        id: entered.id,
        problems: [entered.problem],
      });
      continue;
    }
    const clean = entered.record;
    const parsed = certificateRecord.safeParse(clean);
    if (parsed.success) {
      certificates.push(parsed.data);
      continue;
    }
    const raw = (typeof clean === "object" && clean !== null ? clean : {}) as Record<
      string,
      unknown
    >;
    rejected.push({
      index,
      certificateName: typeof raw.certificateName === "string" ? raw.certificateName : undefined,
      id: typeof raw.id === "number" ? raw.id : undefined,
      problems: toProblems(parsed.error, clean),
    });
  }
  return { certificates, rejected };
}

/** What a name that carried a secret is said to hold. */
export const SECRET_QUOTED = "a secret certsched sent (an access token or key, quoted back)";

/** What a record the service sent becomes as it enters: cleaned, or refused for its name. */
export type EnteredRecord =
  | { readonly ok: true; readonly record: unknown }
  | { readonly ok: false; readonly id: number | undefined; readonly problem: Problem };

/**
 * A record as it enters certsched (a due list's, Get Certificate's): every string in it with
 * each secret redacted (the registry's, and tokens by their shape), before it is parsed,
 * stored, keyed or shown. A JSON 200 that quotes the request (an echoing gateway, a service
 * that copies accessToken into a field) must not carry the tokens any further than a text
 * answer does. A record whose certificateName held a secret is refused: the name is its
 * identity (ledger, inventory and history keys, the renewal sent back), and "[REDACTED]" is not
 * its name. It is named by its id, the one identity it has left.
 */
export function enteredRecord(item: unknown): EnteredRecord {
  const record = redactRecordStrings(item);
  const name = (value: unknown) =>
    typeof value === "object" && value !== null
      ? (value as { certificateName?: unknown }).certificateName
      : undefined;
  const sent = name(item);
  if (typeof sent === "string" && name(record) !== sent) {
    const id = (record as { id?: unknown }).id;
    const known = typeof id === "number" ? id : undefined;
    return {
      ok: false,
      id: known,
      problem: {
        name: "certificateName",
        message: `holds ${SECRET_QUOTED}; the record with id ${known ?? "(none)"} is not renewed, not stored`,
      },
    };
  }
  return { ok: true, record };
}
