/**
 * One error family for everything certsched throws, one import path. Every class extends
 * CertschedError and has a stable `code` (ErrorCode) and a `fault` ("ours" | "caller" |
 * "upstream"); the surfaces (shared/edge/errorResponse.ts, cli/failure.ts) branch on those,
 * never on a class from another folder. Class names, codes and messages are a contract: tests,
 * alerts and operators read them.
 *
 * The classes live in shared/lib/errors/, by who meets them: family.ts (the root, codes,
 * faults), input.ts (settings and input), upstream.ts (the service, tokens, an unknown
 * outcome), http.ts (the HTTP edge), cli.ts (the CLI), outcomes.ts (runs that failed, rows not
 * stored).
 *
 * One member lives elsewhere: QuotaExhaustedError (code QUOTA_EXHAUSTED, fault "ours") is in
 * shared/core/quota/budgetRules.ts, because it carries a domain payload (QuotaUsage, the
 * budget's arithmetic in core) and lib may import nothing of ours. The surfaces read it by its
 * code and its fields, never by instanceof.
 */
import { CliFailure, InputError, UsageError } from "./errors/cli.js";
import type { CertschedError, ErrorCode } from "./errors/family.js";
import { BodyTooLargeError, ForbiddenError, UnsupportedMediaTypeError } from "./errors/http.js";
import { ConfigError, ValidationError } from "./errors/input.js";

export { CliFailure, InputError, UsageError } from "./errors/cli.js";
export {
  CertschedError,
  type CertschedErrorOptions,
  type ErrorCode,
  ensureError,
  FAULT_OF,
  type Fault,
  isCertschedError,
} from "./errors/family.js";
export { BodyTooLargeError, ForbiddenError, UnsupportedMediaTypeError } from "./errors/http.js";
export { ConfigError, type Problem, ValidationError } from "./errors/input.js";
export {
  EstateAlertError,
  MAX_LISTED_PROBLEMS,
  SweepFailedError,
  TransparencyAlertError,
  UnstoredError,
  VerificationFailedError,
} from "./errors/outcomes.js";
export {
  checkWith,
  OutcomeUnknownError,
  TokenError,
  UpstreamError,
  type UpstreamName,
  upstreamOf,
} from "./errors/upstream.js";

/** The class that carries a code's own fields, where one class does (the guard checks it). */
const CARRIER = {
  CONFIG_INVALID: ConfigError,
  VALIDATION_FAILED: ValidationError,
  FORBIDDEN: ForbiddenError,
  PAYLOAD_TOO_LARGE: BodyTooLargeError,
  UNSUPPORTED_MEDIA_TYPE: UnsupportedMediaTypeError,
  USAGE: UsageError,
  INPUT_INVALID: InputError,
  PORT_IN_USE: CliFailure,
  PORT_NOT_ALLOWED: CliFailure,
} as const satisfies Partial<Record<ErrorCode, abstract new (...args: never[]) => CertschedError>>;

export type CarriedCode = keyof typeof CARRIER;

/**
 * Whether `error` has this code, thrown as the class that carries the code's fields (a
 * ValidationError's `issues`, a ForbiddenError's `requiredRole`, ...): how a surface branches on
 * a code and reads its details. A code another class also uses (UnstoredError's
 * VALIDATION_FAILED, about stored rows) does not match.
 */
export function hasCode<C extends CarriedCode>(
  error: unknown,
  code: C,
): error is InstanceType<(typeof CARRIER)[C]> & { readonly code: C } {
  return error instanceof CARRIER[code] && (error as CertschedError).code === code;
}
