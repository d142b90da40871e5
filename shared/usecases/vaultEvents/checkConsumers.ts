import type { CertificateEvent } from "../../core/history/events.js";
import type { Ledger } from "../../core/ports/ledger.js";
import type { Notifier } from "../../core/ports/notifier.js";
import type { Probes } from "../../core/ports/probes.js";
import type {
  RecheckMessage,
  RecheckQueue,
  VaultEventStore,
} from "../../core/ports/vaultEvents.js";
import type { Settings } from "../../core/settings.js";
import { type ConsumerState, consumersOf, nextRecheck } from "../../core/vaultEvents/consumers.js";
import type { VaultEventKind } from "../../core/vaultEvents/vaultEvent.js";
import { DEFAULT_SYNC_WINDOW_MS, type VaultVersion } from "../../core/verification/syncCheck.js";
import { ensureError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { redact } from "../../lib/redact/redact.js";
import { boundDetail } from "../../lib/text/boundDetail.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { MINUTE_MS } from "../../lib/time.js";
import { type VerifyPorts, verifyWith } from "../verify.js";
import { type VaultEventOptions, withVaultSeam } from "./confirmWithVault.js";

/**
 * A vault version's consumers checked now, with the verification every trigger runs (the
 * receipt of a renewal that landed, pending and not-synced by its rules), and checked again
 * through the recheck queue until each serves it or the sync window ends.
 */

/**
 * What the Key Vault events need of one account: the verification's ports, the vault reads, the
 * ledger's record and the alerts; the AccountPorts (shared/app/services.ts) satisfies it.
 */
export type EventAccountPorts = VerifyPorts & {
  readonly probes: Probes;
  readonly ledger: VerifyPorts["ledger"] & Pick<Ledger, "read">;
  readonly notifier: VerifyPorts["notifier"] & Pick<Notifier, "notifyVaultAlerts">;
  readonly settings: VerifyPorts["settings"] &
    Pick<Settings, "watchVaults" | "verify"> &
    Partial<Pick<Settings, "accountsDeclared">>;
};

/** What a delivery needs: the accounts, each one's ports, the event store and the recheck queue. */
export interface VaultEventsPorts {
  readonly accounts: readonly string[];
  readonly app: { readonly vaultEvents: VaultEventStore; readonly recheckQueue: RecheckQueue };
  forAccount(id?: string): EventAccountPorts;
}

/** CERTSCHED_EVENT_RECHECK_FIRST's default. */
export const DEFAULT_RECHECK_FIRST_MS = MINUTE_MS;

/** One check of a vault version's consumers. */
export interface ConsumerCheck {
  readonly account: string;
  readonly vaultName: string;
  /** The certificate's name in the vault. */
  readonly certificateName: string;
  readonly version: VaultVersion;
  /** The inventory's names bound to it (certificates and watched endpoints). */
  readonly names: readonly string[];
  /** The recheck this check would send next (1 after the event's own check). */
  readonly nextAttempt: number;
  /** The end of the sync window; undefined: from the version's creation. */
  readonly until?: Date | undefined;
}

/** What the check came to: one line, and whether rechecks follow. */
export interface ConsumerOutcome {
  readonly outcome: string;
  readonly rechecking: boolean;
}

/** The end of the sync window of `version`: its creation (else notBefore) + CERTSCHED_SYNC_WINDOW. */
export function syncWindowEnd(version: VaultVersion, syncWindowMs: number | undefined): Date {
  const created = version.createdOn ?? version.notBefore;
  return new Date(created.getTime() + (syncWindowMs ?? DEFAULT_SYNC_WINDOW_MS));
}

const listed = (names: readonly string[]) => names.map((n) => escapeControl(n)).join(", ");

/** The consumers in words: who serves it, who is behind, who could not be read. */
export function consumersLine(state: ConsumerState): string {
  const parts = [
    state.serving.length > 0 ? `serving: ${listed(state.serving)}` : "",
    state.behind.length > 0 ? `behind: ${listed(state.behind)}` : "",
    state.unread.length > 0 ? `not read: ${listed(state.unread)}` : "",
  ];
  return parts.filter((p) => p !== "").join("; ");
}

/**
 * Verifies the names bound to the version, then: every consumer serving it is the end; else
 * a recheck is sent while the sync window lasts. A failed send is thrown (a redelivery sends it).
 */
export async function checkConsumers(
  ports: EventAccountPorts,
  queue: RecheckQueue,
  log: Logger,
  check: ConsumerCheck,
  options: VaultEventOptions,
): Promise<ConsumerOutcome> {
  if (check.names.length === 0) {
    return {
      outcome: "no certificate of the inventory is bound to it: nothing to check",
      rechecking: false,
    };
  }
  const verifySettings = ports.settings.verify();
  const verification = await verifyWith(
    { ...ports, probes: withVaultSeam(ports.probes, options.keyVault) },
    log,
    {
      trigger: "event",
      names: check.names,
      renewForAri: false,
      ...(options.ca ? { ca: options.ca } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  const state = consumersOf(verification.results, check.names, check.version.thumbprint);
  const waiting = state.behind.length + state.unread.length;
  if (waiting === 0) {
    return {
      outcome:
        state.serving.length > 0
          ? `consumers serve it: ${listed(state.serving)}`
          : "no consumer of it was probed",
      rechecking: false,
    };
  }
  const now = ports.now();
  const until = check.until ?? syncWindowEnd(check.version, verifySettings.syncWindowMs);
  const firstMs = verifySettings.eventRecheckFirstMs ?? DEFAULT_RECHECK_FIRST_MS;
  const next = nextRecheck(check.nextAttempt, firstMs, now, until);
  if (next === undefined) {
    return {
      outcome: `${consumersLine(state)}; the sync window ended at ${until.toISOString()}: no more rechecks`,
      rechecking: false,
    };
  }
  const message: RecheckMessage = {
    account: check.account,
    vaultName: check.vaultName,
    certificateName: check.certificateName,
    version: check.version.version ?? "",
    names: check.names,
    until: until.toISOString(),
    attempt: check.nextAttempt,
  };
  await queue.send(message, Math.max(0, next.getTime() - now.getTime()), log);
  return {
    outcome: `${consumersLine(state)}; checking again at ${next.toISOString()}`,
    rechecking: true,
  };
}

/** The history's name of a vault certificate: the inventory's, else `vault:<vault>/<certificate>`. */
export function historyName(
  managedName: string | undefined,
  vaultName: string,
  certificateName: string,
): string {
  return managedName ?? `vault:${vaultName}/${certificateName}`;
}

/** Appends history events; a history that cannot be written is a warning, never a failed event. */
export async function record(
  ports: Pick<EventAccountPorts, "history">,
  log: Logger,
  events: readonly CertificateEvent[],
): Promise<void> {
  try {
    await ports.history.append(events);
  } catch (error) {
    log.warn(
      `certsched could not record a vault event in the history: ${redact(ensureError(error).message)}`,
    );
  }
}

/** A `vault-event` history event: the event's kind as its reason, the outcome as its detail. */
export function vaultEventOf(
  at: Date,
  certificateName: string,
  id: number | undefined,
  reason: VaultEventKind,
  detail: string,
  runId: string,
): CertificateEvent {
  return {
    at,
    certificateName,
    ...(id === undefined ? {} : { id }),
    event: "vault-event",
    trigger: "event",
    runId,
    reason,
    detail: boundDetail(detail),
  };
}
