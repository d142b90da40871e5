import { REQUEST_WINDOW_MS, type RequestLog } from "../core/ports/requestLog.js";
import { type CertificateStatus, certificateStatus } from "../core/status/certificateStatus.js";
import { pageOf, type StatusPageQuery } from "../core/status/statusPage.js";
import type { StatusSources } from "../core/status/statusSources.js";
import { loadStatus, type StatusOptionsPorts, statusOptionsOf } from "./steps/loadStatus.js";

/** What a status list needs besides its sources: the clock, two settings, the request count. */
export interface StatusListPorts extends StatusOptionsPorts {
  readonly requests: Pick<RequestLog, "kind" | "since">;
}

/**
 * The answer of GET /api/certificates. `items` in name order; `next` when more follow;
 * `requests7d` the requests sent to the service in the last 7 days (left out when the history
 * cannot say); `invalid` the storage rows that could not be read.
 */
export interface StatusList {
  readonly items: CertificateStatus[];
  readonly next?: string;
  readonly requests7d?: number;
  readonly invalid?: string[];
}

/** One page of the inventory with status; reads storage only (no request to the service). */
export async function statusList(
  ports: StatusListPorts,
  sources: StatusSources,
  query: StatusPageQuery,
): Promise<StatusList> {
  const options = statusOptionsOf(ports);
  const since = new Date(options.now.getTime() - REQUEST_WINDOW_MS);
  const [loaded, requests7d] = await Promise.all([
    // Every certificate, not loadStatus's first 5,000 by name: a page is cut after the
    // continuation's name, so a bound before it would end the listing early, with no `next`.
    loadStatus(sources, { max: Number.POSITIVE_INFINITY }),
    // The count is a help, not the answer: a history that cannot be read leaves it out.
    ports.requests.kind === "none"
      ? Promise.resolve(undefined)
      : ports.requests.since(since).catch(() => undefined),
  ]);
  const page = pageOf(
    loaded.inputs.map((input) => certificateStatus(input, options)),
    query,
  );
  return {
    ...page,
    ...(requests7d !== undefined ? { requests7d } : {}),
    ...(loaded.invalid.length > 0 ? { invalid: loaded.invalid } : {}),
  };
}
