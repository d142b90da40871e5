import { type CertificateRecord, certificateRecord } from "../../core/certificate/records.js";
import { UpstreamError } from "../../lib/errors.js";
import type { InboundResponse } from "../../lib/http/attempt.js";
import { responseDetail } from "../../lib/http/responseDetail.js";
import { toProblems } from "../../lib/zodProblems.js";
import { enteredRecord, isHtml, OPERATION_LABEL, SECRET_QUOTED, statusError } from "./responses.js";

const LABEL = OPERATION_LABEL.get;

/**
 * Get Certificate's answer: one certificate record (spec 2.3) as JSON, validated as the list's
 * records are (the fields certsched uses strictly, the rest kept as sent). An unknown name is a
 * 4xx with plain text; a 404 is the service's answer about the name, not a failure of the
 * service, so it is UPSTREAM_REJECTED (the caller's request was refused) like a 400.
 */
export function certificateFound(certificateName: string, res: InboundResponse): CertificateRecord {
  if (res.status === 404) {
    const detail = responseDetail(res.text, res.contentType);
    throw new UpstreamError(
      "UPSTREAM_REJECTED",
      "get",
      `${LABEL} failed: the service answered 404 (no certificate named ${certificateName})${
        detail ? `: ${detail}` : ""
      }`,
      { status: 404, ...(detail ? { detail } : {}) },
    );
  }
  if (res.status < 200 || res.status >= 300) throw statusError("get", res);
  if (isHtml(res)) throw badAnswer(res, "an HTML page");
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    throw badAnswer(res, "text that is not JSON");
  }
  const entered = enteredRecord(body);
  if (!entered.ok) {
    const id = entered.id ?? "none";
    throw badAnswer(res, `a record (id ${id}) whose certificateName holds ${SECRET_QUOTED}`);
  }
  const parsed = certificateRecord.safeParse(entered.record);
  if (!parsed.success) {
    const problems = toProblems(parsed.error, entered.record)
      .map((p) => `${p.name} ${p.message}`)
      .join("; ");
    throw badAnswer(res, `a record certsched cannot use (${problems})`);
  }
  // The service answers for the name asked; another name is not that certificate's record
  // (case aside: whether the service matches names case-insensitively is not shown).
  if (parsed.data.certificateName.toLowerCase() !== certificateName.toLowerCase()) {
    throw badAnswer(res, "the record of another certificate");
  }
  return parsed.data;
}

function badAnswer(res: InboundResponse, what: string): UpstreamError {
  return new UpstreamError(
    "UPSTREAM_BAD_RESPONSE",
    "get",
    `${LABEL} failed: the service answered ${res.status} with ${what}, not the certificate record it sends`,
    { status: res.status },
  );
}
