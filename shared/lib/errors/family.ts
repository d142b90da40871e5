import { types } from "node:util";

/**
 * The family's root: every error certsched throws is a CertschedError with a stable `code` and
 * a `fault`. Callers branch on `code` (and `fault`), never on messages or classes from other
 * libraries. Messages are written for the person reading a log at 2 a.m. and never carry a
 * secret: callers build them from names and statuses, not from request data.
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
  /** The run store or the run queue (Storage tables, queues) could not be used. */
  | "RUNS_UNAVAILABLE"
  /** The Certificate Transparency store (Table storage) could not be read or written. */
  | "STORAGE_UNAVAILABLE"
  /** A renewal sweep ran and must be recorded as failed; `problems` says why, one line each. */
  | "SWEEP_FAILED"
  /** A verification run found certificates that need a person; `problems` names each one. */
  | "VERIFICATION_FAILED"
  /**
   * A Certificate Transparency watch found issuances nothing certsched did explains, or could not
   * ask the log watcher; `problems` names each.
   */
  | "TRANSPARENCY_ALERT"
  | "ESTATE_ALERT"
  /** An Entra ID caller lacks the app role the operation needs (shared/edge/auth). */
  | "FORBIDDEN"
  /**
   * CERTSCHED_SERVICE_QUOTA refused a request before it was sent (QuotaExhaustedError, in
   * shared/core/quota/budgetRules.ts): the budget is spent, or what is left is kept for
   * renewals. Nothing reached the service.
   */
  | "QUOTA_EXHAUSTED"
  /** An HTTP request's body is larger than the edge reads (413). */
  | "PAYLOAD_TOO_LARGE"
  /** An HTTP request's body is not JSON in UTF-8 (415). */
  | "UNSUPPORTED_MEDIA_TYPE"
  /** The CLI's command line is wrong: unknown command or flag, a bad value (exit code 2). */
  | "USAGE"
  /** A file named on the CLI's command line is missing, unreadable or invalid (exit code 2). */
  | "INPUT_INVALID"
  /** The CLI's sandbox cannot listen: the port is taken. */
  | "PORT_IN_USE"
  /** The CLI's sandbox cannot listen: the port needs privileges this user lacks. */
  | "PORT_NOT_ALLOWED";

/**
 * Whose fault a failure is, as the Functions library tells a user error from a system one:
 * - "ours": certsched or how it is deployed (its settings, the budget it keeps, a bug);
 * - "caller": whoever asked (an HTTP request, a command line, a file, a missing role);
 * - "upstream": what certsched calls or checks (the service, Entra ID, Key Vault, Storage, the
 *   endpoints it verifies).
 */
export type Fault = "ours" | "caller" | "upstream";

/** Each code's fault; a class may say otherwise for its own instances (UnstoredError). */
export const FAULT_OF: Readonly<Record<ErrorCode, Fault>> = {
  CONFIG_INVALID: "ours",
  VALIDATION_FAILED: "caller",
  UPSTREAM_REJECTED: "upstream",
  UPSTREAM_UNAUTHORIZED: "upstream",
  UPSTREAM_FAILED: "upstream",
  UPSTREAM_BAD_RESPONSE: "upstream",
  UPSTREAM_UNREACHABLE: "upstream",
  UPSTREAM_TIMEOUT: "upstream",
  TOKEN_REFUSED: "upstream",
  TOKEN_UNAVAILABLE: "upstream",
  SECRET_UNAVAILABLE: "upstream",
  LEDGER_UNAVAILABLE: "upstream",
  HISTORY_UNAVAILABLE: "upstream",
  INVENTORY_UNAVAILABLE: "upstream",
  RUNS_UNAVAILABLE: "upstream",
  STORAGE_UNAVAILABLE: "upstream",
  SWEEP_FAILED: "upstream",
  VERIFICATION_FAILED: "upstream",
  TRANSPARENCY_ALERT: "upstream",
  ESTATE_ALERT: "upstream",
  FORBIDDEN: "caller",
  QUOTA_EXHAUSTED: "ours",
  PAYLOAD_TOO_LARGE: "caller",
  UNSUPPORTED_MEDIA_TYPE: "caller",
  USAGE: "caller",
  INPUT_INVALID: "caller",
  PORT_IN_USE: "ours",
  PORT_NOT_ALLOWED: "ours",
};

export interface CertschedErrorOptions {
  /** Whether repeating the same call may succeed. */
  retriable?: boolean;
  /** Whose fault it is; default: the code's (FAULT_OF). */
  fault?: Fault;
  cause?: unknown;
}

export class CertschedError extends Error {
  readonly code: ErrorCode;
  readonly fault: Fault;
  readonly retriable: boolean;

  constructor(code: ErrorCode, message: string, options: CertschedErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "CertschedError";
    this.code = code;
    this.fault = options.fault ?? FAULT_OF[code];
    this.retriable = options.retriable ?? false;
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
