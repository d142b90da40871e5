import type { ArmAnswer } from "../../core/ports/preflightProbes.js";
import { MAX_CHECK_DETAIL } from "../../core/preflight/preflight.js";
import { ensureError } from "../../lib/errors.js";
import { isAnswerTooLarge, sizeText } from "../../lib/http/boundedAnswerPolicy.js";
import { redact, redactValue } from "../../lib/redact/redact.js";
import { boundDetail } from "../../lib/text/boundDetail.js";

/**
 * What a failed ARM read says (adapters/preflight/armLookups.ts): the SDK's error, the token
 * source's refusal, a timeout, as one of the ArmAnswer kinds with one line for people.
 */

/** Longest piece of ARM's own message kept in a detail (the whole detail is bounded too). */
const MAX_MESSAGE = 160;

/** The fields of the SDKs' RestError we read (two SDK generations, maybe two realms). */
interface RestErrorLike {
  readonly statusCode?: number;
  readonly code?: string;
  readonly message?: string;
  readonly details?: { error?: { code?: unknown; message?: unknown } };
}

/** How one lookup went wrong, as armLookups.ts saw it happen. */
export interface LookupTrouble {
  /** What was read, for people: "DNS zone contoso.com in resource group rg-dns". */
  readonly what: string;
  /** What a 404 says is not there: "DNS zone contoso.com in resource group rg-dns". */
  readonly absent: string;
  readonly timeoutMs: number;
  /** The lookup's deadline (or one request's timer) ran out. */
  readonly timedOut: boolean;
  /** The caller's signal aborted. */
  readonly cancelled: boolean;
  /** The credential failed to give a token (the identity provider refused, ...). */
  readonly tokenFailure: unknown;
  /** Every token the credential handed out for this lookup: never quoted. */
  readonly tokens: readonly string[];
}

/** `text` without any registered secret, token shape or token handed out. */
function scrub(text: string, tokens: readonly string[]): string {
  let clean = redact(text);
  for (const token of tokens) clean = redactValue(clean, token);
  return clean;
}

/** One line, without any token handed out, redacted, escaped, at most MAX_CHECK_DETAIL. */
export function armDetail(text: string, tokens: readonly string[] = []): string {
  return boundDetail(scrub(text, tokens), MAX_CHECK_DETAIL);
}

/**
 * ARM's own words, first line, shortened. Redacted before it is cut: a token straddling the
 * cut would otherwise leave a piece of itself.
 */
function armMessage(error: RestErrorLike, tokens: readonly string[]): string {
  const fromBody = error.details?.error?.message;
  const text = typeof fromBody === "string" ? fromBody : (error.message ?? "");
  const line = (scrub(text, tokens).split(/\r?\n/)[0] ?? "").trim();
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE)}…` : line;
}

function armCode(error: RestErrorLike): string {
  const fromBody = error.details?.error?.code;
  const code = typeof fromBody === "string" ? fromBody : error.code;
  return typeof code === "string" && code !== "" ? ` ${code.slice(0, 64)}` : "";
}

/** An answer that is not `found`: what a failed lookup becomes. */
export type ArmFailed = Exclude<ArmAnswer<never>, { readonly kind: "found" }>;

/** Maps whatever a lookup threw to an answer; never throws and never quotes a token. */
export function armFailure(thrown: unknown, trouble: LookupTrouble): ArmFailed {
  const { what, absent, tokens } = trouble;
  const detail = (text: string) => armDetail(text, tokens);
  if (trouble.cancelled)
    return { kind: "unknown", detail: detail(`reading ${what} was cancelled`) };
  if (trouble.timedOut) {
    return {
      kind: "unknown",
      detail: detail(
        `no answer from Azure Resource Manager within ${trouble.timeoutMs} ms reading ${what} (CERTSCHED_PREFLIGHT_TIMEOUT)`,
      ),
    };
  }
  if (trouble.tokenFailure !== undefined) {
    const message =
      scrub(ensureError(trouble.tokenFailure).message, tokens).split(/\r?\n/)[0] ?? "";
    return {
      kind: "refused",
      status: 401,
      detail: detail(`no management token to read ${what}: ${message}`),
    };
  }
  const error = (typeof thrown === "object" && thrown !== null ? thrown : {}) as RestErrorLike;
  const status = typeof error.statusCode === "number" ? error.statusCode : undefined;
  const code = armCode(error);
  const message = armMessage(error, tokens);
  switch (status) {
    case 404:
      return {
        kind: "missing",
        detail: detail(`Azure Resource Manager has no ${absent} (404${code})`),
      };
    case 401:
      return {
        kind: "refused",
        status: 401,
        detail: detail(
          `Azure Resource Manager refused certsched's management token reading ${what} (401${code}): ${message}`,
        ),
      };
    case 403:
      return {
        kind: "refused",
        status: 403,
        detail: detail(
          `Azure Resource Manager refused reading ${what} (403${code}): the app's identity needs a role that may read it (Reader): ${message}`,
        ),
      };
    case undefined: {
      const network = typeof error.code === "string" ? ` (${error.code.slice(0, 64)})` : "";
      const text = scrub(ensureError(thrown).message, tokens).split(/\r?\n/)[0] ?? "";
      return {
        kind: "unknown",
        detail: detail(`cannot read ${what} from Azure Resource Manager${network}: ${text}`),
      };
    }
    default:
      if (isAnswerTooLarge(thrown)) {
        return {
          kind: "unknown",
          detail: detail(
            `Azure Resource Manager's answer (${status}) reading ${what} is longer than ${sizeText(thrown.limitBytes)}; certsched reads at most that of one answer`,
          ),
        };
      }
      return {
        kind: "unknown",
        detail: detail(
          `Azure Resource Manager answered ${status}${code} reading ${what}: ${message}`,
        ),
      };
  }
}
