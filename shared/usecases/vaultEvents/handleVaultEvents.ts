import { randomUUID } from "node:crypto";
import { eventLine, MAX_SKIP_LINES, skippedSummary } from "../../core/vaultEvents/lines.js";
import { readVaultEvents } from "../../core/vaultEvents/readEvents.js";
import {
  eventKey,
  MAX_EVENTS_PER_DELIVERY,
  type ReadEvent,
  type SkipReason,
  type VaultEvent,
} from "../../core/vaultEvents/vaultEvent.js";
import { ensureError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { mapWithConcurrency } from "../../lib/pool.js";
import { redact } from "../../lib/redact/redact.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import type { VaultEventsPorts } from "./checkConsumers.js";
import type { VaultEventOptions } from "./confirmWithVault.js";
import {
  type DeliveryContext,
  type EventOutcome,
  handleForAccount,
  skipped,
} from "./handleForAccount.js";
import { deliveryWatchers, type Watcher } from "./matchAccounts.js";

/**
 * One delivery of Key Vault events, as Event Grid hands it to the function: each event read
 * and checked (readVaultEvents), told apart from its duplicates within the delivery, matched
 * with the accounts that watch its vault, confirmed by the vault, claimed so it is done once
 * across deliveries, then acted on (handleForAccount.ts). One event's failure never stops the
 * others; every event gets one bounded, escaped line (skipped ones at most MAX_SKIP_LINES).
 */

export type { VaultEventsPorts } from "./checkConsumers.js";
export type { VaultEventOptions } from "./confirmWithVault.js";

/** What one delivery of Key Vault events came to. */
export interface VaultEventsRun {
  /** Items delivered (an array counts each entry). */
  readonly received: number;
  /** One line per event (and account that watches it), escaped and bounded, in delivery order. */
  readonly outcomes: readonly EventOutcome[];
  /** Events whose work failed for a reason a redelivery may fix (storage, the vault unreachable). */
  readonly failed: readonly string[];
}

/** Events worked on at once within one delivery. */
export const EVENT_CONCURRENCY = 8;

type Item =
  | ReadEvent
  | { readonly kind: "duplicate"; readonly event: VaultEvent; readonly first: string };

/**
 * The delivery's items, a later copy of an event told as such: the same vault, certificate,
 * version and kind, from the same subscription and resource group (a forged copy naming another
 * subscription never hides the real one: each is matched on its own).
 */
function deduplicated(events: readonly ReadEvent[]): Item[] {
  const first = new Map<string, string>();
  return events.map((read): Item => {
    if (read.kind !== "event") return read;
    const { subscriptionId, resourceGroup } = read.event;
    const key = `${eventKey(read.event)}/${subscriptionId}/${resourceGroup}`.toLowerCase();
    const seen = first.get(key);
    if (seen !== undefined) return { kind: "duplicate", event: read.event, first: seen };
    first.set(key, read.event.id);
    return read;
  });
}

/**
 * Reads, confirms and acts on a delivery of Key Vault events. Never throws for an event:
 * 1. read each item (both schemas, every bound);
 * 2. tell a copy within the delivery from its first;
 * 3. per event (EVENT_CONCURRENCY at once): the accounts that watch its vault, then in each one
 *    the vault's confirmation, the claim, the work and its record (handleForAccount.ts);
 * 4. the skipped events' lines, capped, and the ids of the events a redelivery may fix.
 */
export async function handleVaultEvents(
  services: VaultEventsPorts,
  input: unknown,
  log: Logger,
  options: VaultEventOptions = {},
): Promise<VaultEventsRun> {
  const { events, beyond } = readVaultEvents(input);
  const items = deduplicated(events);
  const delivery: Delivery = {
    context: { services, log, options, runId: randomUUID() },
    watchersOf: deliveryWatchers(services),
    several: services.accounts.length > 1,
  };
  const results = await mapWithConcurrency(items, EVENT_CONCURRENCY, (item) =>
    handleItem(delivery, item),
  );
  const outcomes = results.flat();
  reportSkipped(log, outcomes, beyond);
  const failed = [
    ...new Set(outcomes.filter((o) => o.outcome === "failed").map((o) => o.id ?? "?")),
  ];
  return { received: events.length + beyond, outcomes, failed };
}

/** What every event of one delivery shares. */
interface Delivery {
  readonly context: DeliveryContext;
  /** The accounts watching an event's vault (each account's inventory read once per delivery). */
  readonly watchersOf: ReturnType<typeof deliveryWatchers>;
  readonly several: boolean;
}

/** One item: skipped as read, a copy, not watched, or handled in each account that watches it. */
async function handleItem(delivery: Delivery, item: Item): Promise<EventOutcome[]> {
  const { log } = delivery.context;
  if (item.kind === "skipped") return [skipped(undefined, item.id, item.reason, item.detail)];
  const { event } = item;
  if (item.kind === "duplicate") {
    const detail = `the same event as ${item.first} earlier in this delivery`;
    return [skipped(event, event.id, "duplicate", detail)];
  }
  try {
    const found = await delivery.watchersOf(event);
    if (found.kind === "not-watched")
      return [skipped(event, event.id, "not-watched", found.detail)];
    if (found.kind === "unreadable") return [failedOutcome(log, event, found.detail)];
    const outcomes: EventOutcome[] = [];
    // One account's failure (its claim not stored) never stops another's work.
    for (const watcher of found.watchers) {
      const watching = named(watcher, delivery.several);
      outcomes.push(
        await handleForAccount(delivery.context, event, watching).catch((error) =>
          failedOutcome(log, event, redact(ensureError(error).message)),
        ),
      );
    }
    return outcomes;
  } catch (error) {
    return [failedOutcome(log, event, redact(ensureError(error).message))];
  }
}

/** The watcher, with whether lines name its account (several accounts declared). */
const named = (watcher: Watcher, several: boolean) => ({ ...watcher, several });

/** A failed event's line, logged at once. */
function failedOutcome(log: Logger, event: VaultEvent, detail: string): EventOutcome {
  const line = eventLine(event, event.id, "failed", escapeControl(detail));
  log.warn(line);
  return { id: event.id, outcome: "failed", line };
}

/** The skipped events' lines, at most MAX_SKIP_LINES, then one line counting the rest by reason. */
function reportSkipped(log: Logger, outcomes: readonly EventOutcome[], beyond: number): void {
  let lines = 0;
  const rest = new Map<SkipReason, number>();
  for (const o of outcomes) {
    if (o.skipped === undefined) continue;
    if (lines < MAX_SKIP_LINES) {
      lines += 1;
      log.warn(o.line);
    } else rest.set(o.skipped, (rest.get(o.skipped) ?? 0) + 1);
  }
  if (rest.size > 0) log.warn(skippedSummary(rest));
  if (beyond > 0) {
    log.warn(
      `certsched vault events: ${beyond.toLocaleString("en-US")} more in this delivery were not read (at most ${MAX_EVENTS_PER_DELIVERY.toLocaleString("en-US")} are)`,
    );
  }
}
