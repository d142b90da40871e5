import { eventLine } from "../../core/vaultEvents/lines.js";
import { eventKey, type SkipReason, type VaultEvent } from "../../core/vaultEvents/vaultEvent.js";
import { ensureError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { redact } from "../../lib/redact/redact.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { MINUTE_MS } from "../../lib/time.js";
import {
  checkConsumers,
  historyName,
  record,
  type VaultEventsPorts,
  vaultEventOf,
} from "./checkConsumers.js";
import { type Confirmed, confirmWithVault, type VaultEventOptions } from "./confirmWithVault.js";
import { judgeExpiryEvent } from "./judgeExpiryEvent.js";
import type { Watcher } from "./matchAccounts.js";

/**
 * One confirmed event's work in one account that watches its vault: confirmed by the vault,
 * claimed in the account's event store (so duplicates and redeliveries do nothing twice), then
 * acted on: a new version's consumers checked, an expiry weighed. Work that failed for a reason
 * a redelivery may fix gives its claim back and counts as failed.
 */

/** How long a claim holds before a redelivery may take the work over (a delivery that died). */
export const CLAIM_LEASE_MS = 10 * MINUTE_MS;

/** One event's outcome (in one account): its line, and the skip reason when it was skipped. */
export interface EventOutcome {
  readonly id: string | undefined;
  /** "failed", the skip reason, or what was done ("done", "rechecking", the expiry verdict). */
  readonly outcome: string;
  readonly line: string;
  readonly skipped?: SkipReason | undefined;
}

/** A skipped event's outcome (its line is logged with the delivery's, capped). */
export function skipped(
  event: VaultEvent | undefined,
  id: string | undefined,
  reason: SkipReason,
  detail: string,
): EventOutcome {
  return {
    id,
    outcome: reason,
    skipped: reason,
    line: eventLine(event, id, `skipped ${reason}`, detail),
  };
}

export interface DeliveryContext {
  readonly services: VaultEventsPorts;
  readonly log: Logger;
  readonly options: VaultEventOptions;
  /** The history's run id of this delivery's events. */
  readonly runId: string;
}

type Watching = Watcher & { readonly several: boolean };

/** What the vault's answer makes of the event: go on with the versions, or its outcome now. */
function refusal(event: VaultEvent, confirmed: Confirmed, of: string): EventOutcome | undefined {
  if (confirmed.kind === "confirmed") return undefined;
  if (confirmed.kind === "refused")
    return skipped(event, event.id, "malformed", `${of}${confirmed.detail}`);
  if (confirmed.kind === "skip")
    return skipped(event, event.id, confirmed.reason, `${of}${confirmed.detail}`);
  return {
    id: event.id,
    outcome: "failed",
    line: eventLine(
      event,
      event.id,
      "failed",
      `${of}the vault could not be read: ${confirmed.detail}`,
    ),
  };
}

/**
 * Confirms, claims, acts and completes one event in the watcher's account. Throws only when the
 * claim cannot be made (the store unavailable): the caller counts the event failed.
 */
export async function handleForAccount(
  context: DeliveryContext,
  event: VaultEvent,
  watcher: Watching,
): Promise<EventOutcome> {
  const { services, log } = context;
  const { account } = watcher;
  const of = watcher.several ? `account "${escapeControl(account)}": ` : "";
  const ports = services.forAccount(account);
  const confirmed = await confirmWithVault(ports, event, watcher.certificate, context.options);
  const refused = refusal(event, confirmed, of);
  if (refused !== undefined || confirmed.kind !== "confirmed") {
    if (refused?.outcome === "failed") log.warn(refused.line);
    return refused as EventOutcome;
  }
  const store = services.app.vaultEvents;
  const key = eventKey(event);
  const { kind, vaultName, certificateName, version, id } = event;
  const claim = await store.claim(
    account,
    { key, kind, vaultName, certificateName, version, eventId: id, claimedAt: ports.now() },
    CLAIM_LEASE_MS,
  );
  if (claim !== "claimed") {
    const detail = claim === "done" ? "handled already" : "another delivery is handling it";
    return skipped(event, id, "duplicate", `${of}${detail}`);
  }
  try {
    const { word, detail } = await act(context, event, watcher, confirmed);
    const line = eventLine(event, id, word, `${of}${detail}`);
    await store.complete(account, key, detail, ports.now());
    log.info(line);
    return { id, outcome: word, line };
  } catch (error) {
    await store.release(account, key).catch(() => {});
    const line = eventLine(
      event,
      id,
      "failed",
      `${of}${escapeControl(redact(ensureError(error).message))}`,
    );
    log.warn(line);
    return { id, outcome: "failed", line };
  }
}

/** The work of a confirmed event: its outcome word and detail. */
async function act(
  context: DeliveryContext,
  event: VaultEvent,
  watcher: Watching,
  confirmed: Extract<Confirmed, { kind: "confirmed" }>,
): Promise<{ word: string; detail: string }> {
  const { services, log, options, runId } = context;
  const { account, certificate } = watcher;
  const ports = services.forAccount(account);
  if (event.kind !== "new-version") {
    const verdict = await judgeExpiryEvent(ports, log, {
      account,
      event,
      version: confirmed.version,
      current: confirmed.current,
      certificate,
      runId,
    });
    return { word: verdict.kind, detail: verdict.detail };
  }
  const nameInVault = certificate?.nameInVault ?? event.certificateName;
  const checked = await checkConsumers(
    ports,
    services.app.recheckQueue,
    log,
    {
      account,
      vaultName: event.vaultName,
      certificateName: nameInVault,
      version: confirmed.version,
      names: certificate?.names ?? [],
      nextAttempt: 1,
    },
    options,
  );
  const managed = certificate?.managed;
  const name = historyName(managed?.certificateName, event.vaultName, nameInVault);
  await record(ports, log, [
    vaultEventOf(ports.now(), name, managed?.id, event.kind, checked.outcome, runId),
  ]);
  return { word: checked.rechecking ? "rechecking" : "done", detail: checked.outcome };
}
