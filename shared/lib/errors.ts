import { types } from "node:util";

/**
 * One error family for everything certsched does. Callers branch on `code`, never on messages
 * or classes from other libraries. Messages are written for the person reading a log at 2 a.m.
 * and never carry a secret: callers build them from names and statuses, not from request data.
 */
export type ErrorCode =
  /** A setting is missing or invalid; `problems` names each one. */
  | "CONFIG_INVALID"
  /** Input (an HTTP body, a CLI file) failed validation; `issues` names each field. */
  | "VALIDATION_FAILED"
  /** The service answered 400: it refused the request; `detail` holds its plain text. */
  | "UPSTREAM_REJECTED"
  /** The service answered 401: our API key or cloud tokens were refused. */
  | "UPSTREAM_UNAUTHORIZED"
  /** The service answered another non-2xx status (5xx, 429 after retries, ...). */
  | "UPSTREAM_FAILED"
  /** The service answered 2xx with a body we cannot use (malformed JSON, invalid records). */
  | "UPSTREAM_BAD_RESPONSE"
  /** No connection could be made, or it was reset. */
  | "UPSTREAM_UNREACHABLE"
  /** The call did not finish within its timeout. */
  | "UPSTREAM_TIMEOUT"
  /** The identity provider refused to issue a token (AADSTS error). */
  | "TOKEN_REFUSED"
  /** The identity provider could not be reached or answered unusably. */
  | "TOKEN_UNAVAILABLE"
  /** A secret could not be read from Key Vault. */
  | "SECRET_UNAVAILABLE"
  /** The renewal ledger (Table storage) could not be read or written. */
  | "LEDGER_UNAVAILABLE"
  /** The run history (Table storage) could not be read or written; never fails a sweep. */
  | "HISTORY_UNAVAILABLE"
  /** The inventory (Table storage) could not be read or written; never fails a sweep. */
  | "INVENTORY_UNAVAILABLE"
  /** The run store or the run queue (Storage tables, queues) could not be used (issue 13). */
  | "RUNS_UNAVAILABLE"
  /** A renewal sweep ran and must be recorded as failed; `problems` says why, one line each. */
  | "SWEEP_FAILED"
  /** A verification run found certificates that need a person; `problems` names each one. */
  | "VERIFICATION_FAILED"
  /** An Entra ID caller lacks the app role the operation needs (shared/auth). */
  | "FORBIDDEN"
  /**
   * CERTSCHED_SERVICE_QUOTA refused a request before it was sent (shared/adapters/storage/sharedBudget.ts):
   * the budget is spent, or what is left is kept for renewals. Nothing reached the service.
   */
  | "QUOTA_EXHAUSTED";

export interface CertschedErrorOptions {
  /** Whether repeating the same call may succeed. */
  retriable?: boolean;
  cause?: unknown;
}

export class CertschedError extends Error {
  readonly code: ErrorCode;
  readonly retriable: boolean;

  constructor(code: ErrorCode, message: string, options: CertschedErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CertschedError";
    this.code = code;
    this.retriable = options.retriable ?? false;
  }
}

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
  | "webhook";

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

/** One problem with one setting or field: which one, and which rule it broke. */
export interface Problem {
  /** Setting name (e.g. CERTSCHED_BASE_URL) or field path (e.g. cloudAppServiceSlotName). */
  readonly name: string;
  readonly message: string;
}

export class ConfigError extends CertschedError {
  readonly problems: readonly Problem[];

  constructor(problems: readonly Problem[]) {
    super(
      "CONFIG_INVALID",
      `Invalid configuration: ${problems.map((p) => `${p.name}: ${p.message}`).join("; ")}`,
    );
    this.name = "ConfigError";
    this.problems = problems;
  }
}

export class ValidationError extends CertschedError {
  readonly issues: readonly Problem[];

  constructor(what: string, issues: readonly Problem[]) {
    super(
      "VALIDATION_FAILED",
      `Invalid ${what}: ${issues.map((p) => `${p.name}: ${p.message}`).join("; ")}`,
    );
    this.name = "ValidationError";
    this.issues = issues;
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

/**
 * At every boundary (catch blocks, promise rejections) turn whatever was thrown into an Error,
 * so callers can rely on `.message` and `instanceof`.
 */
export function ensureError(value: unknown): Error {
  if (value instanceof Error) return value;
  // An Error from another realm (a vm context, a worker's copy of a library) fails instanceof
  // but is one all the same: the Azure SDK's RestError reached us that way under the host.
  if (types.isNativeError(value)) return value;
  if (isErrorLike(value)) {
    const error = new Error(value.message.trimEnd(), { cause: value });
    error.name = value.name;
    return error;
  }
  return new Error(typeof value === "string" ? value : `Non-error thrown: ${String(value)}`);
}

/** Shaped like an Error (a name and a message), whatever its prototype says. */
function isErrorLike(value: unknown): value is { name: string; message: string } {
  if (typeof value !== "object" || value === null) return false;
  const { name, message } = value as Record<string, unknown>;
  return typeof name === "string" && typeof message === "string";
}

export function isCertschedError(value: unknown): value is CertschedError {
  return value instanceof CertschedError;
}
