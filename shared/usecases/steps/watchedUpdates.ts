import type { CertificateRecord } from "../../core/certificate/records.js";
import type { Trigger } from "../../core/history/events.js";
import { fromServiceRecord } from "../../core/inventory/fromRecords.js";
import { watchKey } from "../../core/inventory/watch.js";
import type { InventoryRecord, InventoryUpdate } from "../../core/ports/inventory.js";
import type { CallOptions, RequestContext } from "../../core/ports/service.js";
import type { NamedEndpoint } from "../../core/verification/endpoint.js";
import { ensureError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { mapWithConcurrency } from "../../lib/pool.js";
import { redact } from "../../lib/redact/redact.js";
import { DAY_MS } from "../../lib/time.js";

/**
 * How long what Get Certificate said about a watched certificate is used before asking again.
 * A week: the service may count every request against a weekly budget, and what
 * verification needs (rootDomain, target, vault) rarely changes; a sweep that lists the
 * certificate refreshes it anyway.
 */
export const WATCH_REFRESH_MS = 7 * DAY_MS;
/** Get Certificate calls in flight at once. */
const GET_CONCURRENCY = 4;

export interface WatchPorts {
  readonly settings: {
    readonly watch: readonly NamedEndpoint[];
    readonly watchCertificates: readonly string[];
  };
  readonly client: {
    get(certificateName: string, options?: CallOptions): Promise<CertificateRecord>;
  };
}

/**
 * What CERTSCHED_WATCH and CERTSCHED_WATCH_CERTIFICATES add to the inventory now: each watched
 * endpoint as `watch:host[:port]`, and each watched certificate as Get Certificate describes it
 * when the inventory knows it from no service record of the last WATCH_REFRESH_MS. A failed
 * look-up is a warning: the certificate is verified as stored, if it is.
 */
export async function watchedUpdates(
  deps: WatchPorts,
  stored: ReadonlyMap<string, InventoryRecord>,
  log: Logger,
  run: { readonly now: Date; readonly trigger: Trigger },
): Promise<InventoryUpdate[]> {
  const { now } = run;
  // A verification's reads count under the trigger of the run that made them.
  const context: RequestContext = { purpose: "read", trigger: run.trigger };
  const endpoints: InventoryUpdate[] = deps.settings.watch.map((endpoint) => ({
    certificateName: watchKey(endpoint),
    rootDomain: endpoint.label,
    source: "watch",
    seenAt: now,
  }));
  const stale = deps.settings.watchCertificates.filter((name) => {
    const record = stored.get(name);
    return (
      record?.id === undefined || now.getTime() - record.lastSeen.getTime() >= WATCH_REFRESH_MS
    );
  });
  const looked = await mapWithConcurrency(stale, GET_CONCURRENCY, async (name) => {
    try {
      return fromServiceRecord(await deps.client.get(name, { context }), "get", now);
    } catch (error) {
      log.warn(
        `certsched could not look up ${name} (CERTSCHED_WATCH_CERTIFICATES) with Get Certificate: ${redact(ensureError(error).message)}`,
      );
      return undefined;
    }
  });
  return [...endpoints, ...looked.filter((u): u is InventoryUpdate => u !== undefined)];
}
