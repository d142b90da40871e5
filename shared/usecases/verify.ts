import type { Trigger } from "../core/history/events.js";
import type { Notifier } from "../core/ports/notifier.js";
import { noTelemetry, type Telemetry } from "../core/ports/telemetry.js";
import type { Settings } from "../core/settings.js";
import { guardedTelemetry } from "../core/telemetry/guardedTelemetry.js";
import type { InventoryVerification } from "../core/verification/inventoryResult.js";
import { type BeforeRun, verificationNotices } from "../core/verification/notices.js";
import {
  type VerificationScope,
  verificationSummaryLine,
} from "../core/verification/verificationSummary.js";
import { ensureError } from "../lib/errors.js";
import type { Logger } from "../lib/log.js";
import { redact } from "../lib/redact/redact.js";
import type { AriReading } from "./steps/askAri.js";
import { type RenewForAriPorts, renewForAri } from "./steps/renewForAri.js";
import {
  type VerifyInventoryOptions,
  type VerifyInventoryPorts,
  verifyInventory,
} from "./steps/verifyInventory.js";

export interface VerifyWithOptions {
  /** What started the run (history, the summary line). */
  readonly trigger: Trigger;
  /** Only these certificates (after a sweep); default: the whole inventory and every watch. */
  readonly names?: readonly string[];
  /** Default "inventory"; "after-sweep" for the sweep's check of what it renewed. */
  readonly scope?: VerificationScope;
  /** Stops the run's probes (a deadline); what was not read counts as unreachable. */
  readonly signal?: AbortSignal;
  /** Trusted certificates instead of Node's store (tests). */
  readonly ca?: VerifyInventoryOptions["ca"];
  readonly runId?: string;
  /**
   * Renew now each certificate whose CA's renewal window (ARI) has started (trigger `ari`);
   * default true: the timer, POST /api/verifications and the sweep's check all do.
   */
  readonly renewForAri?: boolean;
}

/** What a verification run with its reports needs; the AccountPorts (app/services.ts) satisfies it. */
export interface VerifyPorts extends VerifyInventoryPorts {
  readonly settings: VerifyInventoryPorts["settings"] &
    RenewForAriPorts["settings"] &
    Pick<Settings, "webhookUrl"> &
    Partial<Pick<Settings, "account" | "accountsDeclared">>;
  readonly client: VerifyInventoryPorts["client"] & RenewForAriPorts["client"];
  readonly ledger: VerifyInventoryPorts["ledger"] & RenewForAriPorts["ledger"];
  readonly inventory: VerifyInventoryPorts["inventory"] &
    NonNullable<RenewForAriPorts["inventory"]>;
  /** Rejects when it cannot start: the run goes on without it. */
  telemetry(): Promise<Telemetry>;
  readonly notifier: Pick<Notifier, "notifyVerification">;
}

/** The runtime's telemetry, or none (with a warning) when it cannot start: never a failed run. */
async function telemetryOf(ports: Pick<VerifyPorts, "telemetry">, log: Logger): Promise<Telemetry> {
  try {
    return await ports.telemetry();
  } catch (error) {
    log.warn(
      `certsched telemetry could not start, verifying without it: ${redact(ensureError(error).message)}`,
    );
    return noTelemetry;
  }
}

/** The inventory as it is now, for the notices; undefined (no crossings) when it cannot be read. */
async function beforeRun(ports: VerifyPorts, log: Logger): Promise<BeforeRun | undefined> {
  if (!ports.settings.webhookUrl) return undefined; // only the webhook messages need it
  try {
    const { unreachableAfterMs } = ports.settings.verify();
    const { items } = await ports.inventory.list();
    return { records: items, unreachableAfterMs };
  } catch (error) {
    log.warn(
      `certsched could not read the inventory before verifying; webhooks get status changes only: ${redact(ensureError(error).message)}`,
    );
    return undefined;
  }
}

/**
 * One verification run with its ports, as every trigger runs it: the inventory
 * verified (shared/usecases/steps/verifyInventory.ts), then recorded in telemetry, one warning per
 * certificate that needs a person, the summary line, and one webhook message per certificate
 * that changed into (or out of) such a state. Telemetry and webhook failures are logged and
 * never change the result; a failure of the run itself (the inventory unreadable) is thrown.
 */
export async function verifyWith(
  ports: VerifyPorts,
  log: Logger,
  options: VerifyWithOptions,
): Promise<InventoryVerification> {
  const started = performance.now();
  const telemetry = guardedTelemetry(await telemetryOf(ports, log), (m) => log.warn(m));
  const before = await beforeRun(ports, log);
  let ari: readonly AriReading[] = [];
  // Requests to the service made by the run (Get Certificate for watched names) count under its trigger.
  const verification = await verifyInventory(ports, log, {
    trigger: options.trigger,
    onAri: (readings) => {
      ari = readings;
    },
    ...(options.names ? { names: options.names } : {}),
    ...(options.ca ? { ca: options.ca } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.runId ? { runId: options.runId } : {}),
  });
  telemetry.recordVerification(verification, { partial: options.names !== undefined });
  // The CA's word (ARI), once the run is recorded (renewByName counts under trigger `ari`).
  if (options.renewForAri !== false) await renewForAri(ports, log, ari);
  // With accounts declared, every line names the account (alert rules and searches
  // of a single-account deployment see the lines they always did).
  const account = ports.settings.accountsDeclared ? ports.settings.account : undefined;
  const of = account === undefined ? "" : ` (account ${account})`;
  for (const problem of verification.problems) {
    log.warn(`certsched verification problem${of}: ${problem}`);
  }
  log.info(
    verificationSummaryLine(verification, {
      trigger: options.trigger,
      scope: options.scope ?? "inventory",
      durationMs: performance.now() - started,
      account,
    }),
  );
  await Promise.all([
    ports.notifier
      .notifyVerification(verificationNotices(verification, before), log)
      .catch((error: unknown) => {
        log.warn(
          `certsched webhook notification failed${of}: ${redact(ensureError(error).message)}`,
        );
      }),
    telemetry.flush(),
  ]);
  return verification;
}
