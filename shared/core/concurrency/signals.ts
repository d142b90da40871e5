import type { AttemptReport } from "../../lib/http/attemptObserver.js";
import type { AimdSignal } from "./aimd.js";

/** The calls whose answers say how busy the service is: the renewals themselves. */
const RENEWAL_UPSTREAMS: ReadonlySet<string> = new Set(["publicRenew", "renew"]);

/** No answer in time (undici and Node codes). */
const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  "ETIMEDOUT",
]);

/**
 * What one attempt of a renewal tells adaptive concurrency: a 429 is "throttled", any other
 * answer "answered" with its time, no answer in time "timeout". Undefined: it says nothing of
 * the service's load (a token, a list, a refused connection, a reset).
 */
export function signalOf(report: AttemptReport, epoch: number): AimdSignal | undefined {
  if (!RENEWAL_UPSTREAMS.has(report.upstream)) return undefined;
  if (report.status === 429) return { kind: "throttled", epoch };
  if (report.status !== undefined) {
    return { kind: "answered", latencyMs: Math.max(0, report.durationMs), epoch };
  }
  return TIMEOUT_CODES.has(report.errorCode ?? "") ? { kind: "timeout", epoch } : undefined;
}
