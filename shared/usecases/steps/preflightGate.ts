import type { History } from "../../core/ports/history.js";
import type { Inventory, PreflightRecord } from "../../core/ports/inventory.js";
import { blockingReason } from "../../core/preflight/blocking.js";
import type { FailReason } from "../../core/preflight/preflight.js";
import { blockedDetail } from "../../core/renewal/decide.js";
import type { Requester } from "../../core/renewal/requester.js";
import { factsOf, type ServedFacts } from "../../core/verification/served.js";
import { ensureError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { redact } from "../../lib/redact/redact.js";
import { recordRefusedRequest } from "./recordRun.js";

/**
 * Where a renewal meets the last preflight: the results kept with the inventory rows.
 * A failing read never stops a renewal: without the results nothing is known to block it, and
 * the service still decides (a warning says so).
 */

const UNREAD =
  "so the last preflight is not consulted and nothing is blocked by it (the service decides)";

/** What the sweep reads of the inventory once: last preflights, and what each row last saw served. */
export interface LastKnown {
  readonly preflights: ReadonlyMap<string, PreflightRecord>;
  /** The served facts of each row's last verification (a renewal's `before`). */
  readonly served: ReadonlyMap<string, ServedFacts>;
}

/**
 * Every certificate's last preflight and last served certificate, read once a sweep; undefined
 * without storage (no results are kept) or when the inventory cannot be read.
 */
export async function lastKnown(
  inventory: Pick<Inventory, "kind" | "list">,
  log: Logger,
): Promise<LastKnown | undefined> {
  if (inventory.kind === "none") return undefined;
  try {
    const { items } = await inventory.list();
    const preflights = new Map<string, PreflightRecord>();
    const served = new Map<string, ServedFacts>();
    for (const row of items) {
      if (row.lastPreflight) preflights.set(row.certificateName, row.lastPreflight);
      const facts = factsOf(row.lastVerification);
      if (facts) served.set(row.certificateName, facts);
    }
    return { preflights, served };
  } catch (error) {
    log.warn(
      `certsched: the inventory could not be read, ${UNREAD}: ${redact(ensureError(error).message)}`,
    );
    return undefined;
  }
}

/**
 * Every certificate's last preflight, read once a sweep; undefined without storage (no results
 * are kept) or when the inventory cannot be read.
 */
export async function lastPreflights(
  inventory: Pick<Inventory, "kind" | "list">,
  log: Logger,
): Promise<ReadonlyMap<string, PreflightRecord> | undefined> {
  return (await lastKnown(inventory, log))?.preflights;
}

/**
 * Why the last preflight of one certificate blocks its renewal at `now`, and what its row last
 * saw served (the renewal's `before`); neither when the row cannot be read.
 */
export async function rowGate(
  inventory: Pick<Inventory, "kind" | "get"> | undefined,
  certificateName: string,
  now: Date,
  log: Logger,
): Promise<{ readonly blockedBy?: FailReason; readonly before?: ServedFacts }> {
  if (!inventory || inventory.kind === "none") return {};
  try {
    const row = await inventory.get(certificateName);
    const blockedBy = blockingReason(row?.lastPreflight, now);
    const before = factsOf(row?.lastVerification);
    return { ...(blockedBy ? { blockedBy } : {}), ...(before ? { before } : {}) };
  } catch (error) {
    log.warn(
      `certsched: the inventory row of ${certificateName} could not be read, ${UNREAD}: ${redact(ensureError(error).message)}`,
    );
    return {};
  }
}

/** Why the last preflight of one certificate blocks its renewal at `now`, or undefined. */
export async function blockedByPreflight(
  inventory: Pick<Inventory, "kind" | "get"> | undefined,
  certificateName: string,
  now: Date,
  log: Logger,
): Promise<FailReason | undefined> {
  return (await rowGate(inventory, certificateName, now, log)).blockedBy;
}

/**
 * A renewal by name its last preflight blocks, not forced: nothing is sent. The history keeps
 * who asked and why nothing went out (a `blocked` event with the advice).
 */
export function recordBlockedRequest(
  history: History,
  log: Logger,
  request: { certificateName: string; requester: Requester; blockedBy: FailReason; at: Date },
): Promise<string> {
  const { blockedBy, ...asked } = request;
  const detail = blockedDetail(blockedBy);
  return recordRefusedRequest(history, log, {
    ...asked,
    event: "blocked",
    reason: "PreflightBlocked",
    detail,
  });
}
