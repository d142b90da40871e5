import { CertschedError, type ErrorCode } from "./family.js";

/** The upstream the error came from: one of the service's operations, or a dependency. */
export type UpstreamName =
  | "create"
  | "renew"
  | "list"
  | "publicRenew"
  | "test"
  | "get"
  | "token"
  | "keyVault"
  | "ledger"
  | "webhook"
  | "ari"
  /** Certificate Transparency's log watcher (Cert Spotter). */
  | "ct";

/** An HTTP call that failed: carries the status and the upstream's own plain-text detail. */
export class UpstreamError extends CertschedError {
  readonly upstream: UpstreamName;
  /** HTTP status, when the upstream answered at all. */
  readonly status: number | undefined;
  /** The upstream's plain-text detail, shortened; an HTML page is reduced to its title. */
  readonly detail: string | undefined;

  constructor(
    code: ErrorCode,
    upstream: UpstreamName,
    message: string,
    init: { status?: number; detail?: string; retriable?: boolean; cause?: unknown } = {},
  ) {
    super(code, message, { retriable: init.retriable ?? false, cause: init.cause });
    this.name = "UpstreamError";
    this.upstream = upstream;
    this.status = init.status;
    this.detail = init.detail;
  }
}

/** The identity provider refused a token request; `aadsts` is its numeric error code. */
export class TokenError extends CertschedError {
  readonly aadsts: number | undefined;
  readonly status: number | undefined;
  readonly resource: string;

  constructor(
    code: "TOKEN_REFUSED" | "TOKEN_UNAVAILABLE",
    message: string,
    init: {
      resource: string;
      aadsts?: number;
      status?: number;
      retriable?: boolean;
      cause?: unknown;
    },
  ) {
    super(code, message, { retriable: init.retriable ?? false, cause: init.cause });
    this.name = "TokenError";
    this.resource = init.resource;
    this.aadsts = init.aadsts;
    this.status = init.status;
  }
}

/** How a person finds out, in the words every surface uses (CLI, HTTP API, history). */
export function checkWith(certificateName: string): string {
  return `unknown: check with certsched get ${certificateName} (GET /api/certificates/${encodeURIComponent(certificateName)}) in a few minutes`;
}

/**
 * No answer in time, and Get Certificate could not show that it took effect. Code
 * UPSTREAM_TIMEOUT (the HTTP API answers 504), with the way to find out in the message.
 */
export class OutcomeUnknownError extends UpstreamError {
  readonly certificateName: string;

  constructor(
    operation: "create" | "renew",
    certificateName: string,
    why: string,
    cause: UpstreamError,
  ) {
    const what = operation === "create" ? "Creation" : "Renewal";
    super(
      "UPSTREAM_TIMEOUT",
      operation,
      `${what} of ${certificateName}: the service did not answer in time (${cause.message}), and ${why}: it may still have been scheduled; ${checkWith(certificateName)}`,
      { retriable: false, cause },
    );
    this.name = "OutcomeUnknownError";
    this.certificateName = certificateName;
  }
}

/** Which upstream failed and the status it answered, when the error says (UpstreamError, TokenError). */
export function upstreamOf(error: CertschedError): {
  readonly upstream: UpstreamName | undefined;
  readonly status: number | undefined;
} {
  if (error instanceof UpstreamError) return { upstream: error.upstream, status: error.status };
  if (error instanceof TokenError) return { upstream: "token", status: error.status };
  return { upstream: undefined, status: undefined };
}
