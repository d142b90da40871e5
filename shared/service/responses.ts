import { type ErrorCode, type Problem, UpstreamError, type UpstreamName } from "../errors.js";
import type { InboundResponse } from "../http/httpClient.js";
import { responseDetail } from "../http/responseDetail.js";
import { toProblems } from "../schemas/problems.js";
import { type CertificateRecord, certificateRecord } from "../schemas/records.js";

/** How each operation is named in messages a person reads. */
export const OPERATION_LABEL: Readonly<Record<UpstreamName, string>> = {
  create: "create certificate",
  renew: "renew certificate (v3)",
  list: "list certificates due for renewal",
  publicRenew: "renew certificate",
  test: "connectivity test",
  token: "get cloud token",
  keyVault: "read Key Vault secret",
  ledger: "renewal ledger",
  webhook: "notification webhook",
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

/** Create, renew and test answer 200 with plain text (spec 4.1-4.5): keep it as text. */
export function plainText(upstream: UpstreamName, res: InboundResponse): string {
  if (res.status >= 200 && res.status < 300) return res.text;
  throw statusError(upstream, res);
}

function isHtml(res: InboundResponse): boolean {
  return /html/i.test(res.contentType ?? "") || /^\s*<(!doctype|html)/i.test(res.text);
}

/** A record the service sent that we could not use; reported, never dropped silently. */
export interface RejectedRecord {
  readonly index: number;
  readonly certificateName: string | undefined;
  readonly id: number | undefined;
  readonly problems: readonly Problem[];
}

export interface DueList {
  readonly certificates: CertificateRecord[];
  readonly rejected: RejectedRecord[];
}

/**
 * The list's answer (spec 4.3): 200 with a JSON array of records; 404 means nothing is due.
 * Records are validated one by one, so one malformed record does not hide the others.
 */
export function dueList(res: InboundResponse): DueList {
  // A gateway's HTML 404 means we reached the wrong place, not that nothing is due: an
  // address mistake must not pass for an empty list forever.
  if (res.status === 404 && !isHtml(res)) return { certificates: [], rejected: [] };
  if (res.status < 200 || res.status >= 300) throw statusError("list", res);
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
  body.forEach((item: unknown, index) => {
    const parsed = certificateRecord.safeParse(item);
    if (parsed.success) {
      certificates.push(parsed.data);
      return;
    }
    const raw = (typeof item === "object" && item !== null ? item : {}) as Record<string, unknown>;
    rejected.push({
      index,
      certificateName: typeof raw.certificateName === "string" ? raw.certificateName : undefined,
      id: typeof raw.id === "number" ? raw.id : undefined,
      problems: toProblems(parsed.error, item),
    });
  });
  return { certificates, rejected };
}
