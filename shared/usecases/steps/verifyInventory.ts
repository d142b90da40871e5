import { randomUUID } from "node:crypto";
import type { CertificateEvent, Trigger } from "../../core/history/events.js";
import { watchKey } from "../../core/inventory/watch.js";
import type { Ari } from "../../core/ports/ari.js";
import type { History } from "../../core/ports/history.js";
import {
  type Inventory,
  type InventoryRecord,
  type InventoryUpdate,
  mergeRecord,
  type VerificationRecord,
} from "../../core/ports/inventory.js";
import type { Settings } from "../../core/settings.js";
import {
  countInventoryStatuses,
  failsRun,
  type InventoryResult,
  type InventoryVerification,
  problemLine,
  type StatusChange,
  severity,
  toRecord,
  withGrace,
} from "../../core/verification/inventoryResult.js";
import type { AcceptedRenewal } from "../../core/verification/judge.js";
import { type Check, isWatch, MAX_DOMAIN, plan } from "../../core/verification/plan.js";
import type { VerifySettings } from "../../core/verification/verifySettings.js";
import { ensureError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { mapWithConcurrency } from "../../lib/pool.js";
import { redact } from "../../lib/redact/redact.js";
import { boundDetail, withBoundDetail } from "../../lib/text/boundDetail.js";
import { someNames } from "../../lib/text/names.js";
import { type AriReading, askAri, servedForAri } from "./askAri.js";
import { closeReceipts, openReceipts } from "./receipts.js";
import { recordHistory } from "./recordRun.js";
import {
  acceptedRenewals,
  brokenCheck,
  type CheckOptions,
  type CheckPorts,
  type CheckResult,
  runCheck,
  STORAGE_CONCURRENCY,
  withoutAriQuestion,
} from "./runCheck.js";
import { sharedVaultReads } from "./vaultSync.js";
import { type WatchPorts, watchedUpdates } from "./watchedUpdates.js";

/**
 * One verification run over the inventory: every known certificate, every
 * CERTSCHED_WATCH endpoint, judged where users look (TLS or the vault), recorded back.
 * The timer, the sweep, `POST /api/verifications` and `certsched verify` all run this.
 */

/** What a verification run needs; the AccountPorts (shared/app/services.ts) satisfies it. */
export interface VerifyInventoryPorts extends CheckPorts {
  readonly settings: Pick<Settings, "watch" | "watchCertificates" | "verify"> &
    Partial<Pick<Settings, "watchVaults" | "ari">>;
  /** The CAs' renewal information (ARI); absent: not asked. */
  readonly ari?: Ari | undefined;
  readonly client: WatchPorts["client"];
  readonly inventory: Pick<Inventory, "kind" | "list" | "upsert" | "recordVerification">;
  readonly history: History;
}

export interface VerifyInventoryOptions extends CheckOptions {
  readonly trigger: Trigger;
  /** Only these certificate names (and nothing watched); default: the whole inventory. */
  readonly names?: readonly string[];
  readonly runId?: string;
  /** The verification settings; default: `ports.settings.verify()` (the one parse). */
  readonly settings?: VerifySettings;
  /**
   * Certificates to verify besides the inventory's, laid over its records by name and not
   * stored (the CLI's due list when no storage is configured).
   */
  readonly also?: readonly InventoryUpdate[];
  /** Probes at a time (default 16: they wait on the network, not the CPU). */
  readonly concurrency?: number;
  /** Given every certificate with a CA's word on it (ARI), after the run (renewForAri). */
  readonly onAri?: (readings: readonly AriReading[]) => void;
}

/** The records this run verifies: the inventory, what is watched, `also`, merged by name. */
async function recordsToVerify(
  ports: VerifyInventoryPorts,
  log: Logger,
  options: VerifyInventoryOptions,
  now: Date,
): Promise<InventoryRecord[]> {
  const { items, invalid } = await ports.inventory.list();
  for (const line of invalid) {
    log.warn(
      `certsched verification skips an inventory row it cannot read (correct or delete it): ${redact(line)}`,
    );
  }
  const byName = new Map(items.map((r) => [r.certificateName, r]));
  const laid = (updates: readonly InventoryUpdate[]) => {
    for (const u of updates)
      byName.set(u.certificateName, mergeRecord(byName.get(u.certificateName), u));
  };
  if (options.names === undefined) {
    const watched = await watchedUpdates(ports, byName, log, { now, trigger: options.trigger });
    // Stored for the next runs (the grace clock needs a row); failure is a warning only.
    if (ports.inventory.kind !== "none" && watched.length > 0) {
      try {
        await ports.inventory.upsert(watched);
      } catch (error) {
        log.warn(
          `certsched could not store the watched certificates in the inventory (they are verified all the same): ${redact(ensureError(error).message)}`,
        );
      }
    }
    laid(watched);
  }
  laid(options.also ?? []);
  const current = new Set(ports.settings.watch.map(watchKey));
  const wanted = options.names === undefined ? undefined : new Set(options.names);
  return [...byName.values()].filter((r) =>
    wanted
      ? wanted.has(r.certificateName)
      : // An endpoint no longer in CERTSCHED_WATCH stays in the table (its history) but is not checked.
        !isWatch(r) || current.has(r.certificateName),
  );
}

/**
 * Reads and judges every check, `concurrency` at once. A check that throws is that certificate's
 * result (brokenCheck), never the run's failure.
 */
function readChecks(
  ports: VerifyInventoryPorts,
  checks: readonly Check[],
  settings: VerifySettings,
  renewals: ReadonlyMap<string, AcceptedRenewal>,
  options: VerifyInventoryOptions,
): Promise<CheckResult[]> {
  // One read per vault certificate, shared by its vault check and the domains that serve it.
  const checkPorts = {
    probes: sharedVaultReads(ports.probes),
    ledger: ports.ledger,
    now: ports.now,
  };
  return mapWithConcurrency(checks, options.concurrency ?? 16, (check) =>
    runCheck(check, checkPorts, settings, renewals, options)
      .catch((error: unknown) => brokenCheck(check, error))
      // Every result's detail and domain, whatever made them, are bounded here (detail.ts):
      // both may carry the service's or a server's words.
      .then((r) => ({ ...withBoundDetail(r), domain: boundDetail(r.domain, MAX_DOMAIN) })),
  );
}

/** One record's verification: the worst of its domains' results, and whether it is named. */
interface RecordVerification {
  record: InventoryRecord;
  verification: VerificationRecord;
  result: InventoryResult;
  named: boolean;
}

/**
 * Each record's verification: the worst of its domains' results. A record is "named" by a
 * result it comes first in; one that only shares another's domain (a watched endpoint a
 * certificate also names) keeps the reading but reports no change of its own: one domain,
 * one change, one message.
 */
function verificationsByRecord(
  checks: readonly Check[],
  graced: readonly ReturnType<typeof withGrace>[],
  at: Date,
): Map<string, RecordVerification> {
  const perRecord = new Map<string, RecordVerification>();
  graced.forEach((g, i) => {
    (checks[i] as Check).owners.forEach((owner, place) => {
      const known = perRecord.get(owner.certificateName);
      const named = place === 0 || known?.named === true;
      if (known && severity(known.result) <= severity(g.result)) {
        perRecord.set(owner.certificateName, { ...known, named });
        return;
      }
      perRecord.set(owner.certificateName, {
        record: owner,
        verification: toRecord(g.result, at, g.unreachableSince),
        result: g.result,
        named,
      });
    });
  });
  return perRecord;
}

/** The named records whose status changed: each change, and its history event. */
function statusChanges(
  perRecord: Iterable<RecordVerification>,
  at: Date,
  run: { readonly trigger: Trigger; readonly runId: string },
): { changes: StatusChange[]; events: CertificateEvent[] } {
  const changes: StatusChange[] = [];
  const events: CertificateEvent[] = [];
  for (const { record, verification, result, named } of perRecord) {
    if (!named) continue;
    const before = record.lastVerification;
    const critical = verification.critical === true;
    if (before?.status === verification.status && (before.critical === true) === critical) continue;
    changes.push({
      ...(isWatch(record) ? {} : { certificateName: record.certificateName }),
      domain: verification.domain,
      ...(before ? { from: before.status } : {}),
      to: verification.status,
      critical,
    });
    // History keeps changes, not every hourly reading: the inventory holds the latest one.
    events.push({
      at,
      certificateName: record.certificateName,
      id: record.id,
      event: verification.status === "not-landed" ? "not-landed" : "verified",
      trigger: run.trigger,
      runId: run.runId,
      reason: verification.status,
      detail: redact(result.detail),
      expiryDate: record.serviceExpiry,
    });
  }
  return { changes, events };
}

/**
 * Records each record's verification in the inventory (a failure is a warning naming the
 * certificates), then the events in the history.
 */
async function recordVerifications(
  ports: VerifyInventoryPorts,
  log: Logger,
  perRecord: ReadonlyMap<string, RecordVerification>,
  events: readonly CertificateEvent[],
): Promise<void> {
  const unsaved: { readonly name: string; readonly why: string }[] = [];
  await mapWithConcurrency([...perRecord.values()], STORAGE_CONCURRENCY, async (entry) => {
    try {
      await ports.inventory.recordVerification(entry.record.certificateName, entry.verification);
    } catch (error) {
      unsaved.push({ name: entry.record.certificateName, why: ensureError(error).message });
    }
  });
  const first = unsaved[0];
  if (first) {
    // Named: the storage's message says which table, not which certificate.
    log.warn(
      `certsched could not record the verification of ${someNames(unsaved.map((u) => u.name))} in the inventory (the results stand; the unreachable grace may restart): ${redact(first.why)}`,
    );
  }
  await recordHistory(ports.history, log, events);
}

/**
 * Verifies the inventory: reads what each certificate's endpoints serve (or its vault holds),
 * judges it against the ledger's accepted renewal, keeps the unreachable grace, records each
 * certificate's result in the inventory and each change of status in the history. Throws only
 * when the inventory cannot be read; every probe failure is a result.
 */
export async function verifyInventory(
  ports: VerifyInventoryPorts,
  log: Logger,
  options: VerifyInventoryOptions,
): Promise<InventoryVerification> {
  const settings = options.settings ?? ports.settings.verify();
  const started = ports.now();
  const records = await recordsToVerify(ports, log, options, started);
  const checks = plan(records, ports.settings.watchVaults);
  // Only what is read can be pending or not-landed: no ledger reads for the unverifiable.
  const renewals = await acceptedRenewals(
    ports.ledger,
    log,
    checks.flatMap((c) => (c.kind === "unverifiable" ? [] : c.owners)),
  );
  // The fingerprint served before each renewal goes to the judgement.
  const opened = openReceipts(records, renewals);
  const kept = ports.inventory.kind !== "none";
  const checked = await readChecks(ports, checks, settings, opened.renewals, options);
  const read = checked.map(withoutAriQuestion);
  const at = ports.now();
  const graced = read.map((result, i) =>
    withGrace(result, (checks[i] as Check).owners, at, settings, kept),
  );
  const results = graced.map((g) => g.result);
  const perRecord = verificationsByRecord(checks, graced, at);

  const readings = await askAri(ports, log, servedForAri(checks, checked));
  options.onAri?.(readings);

  const run = { trigger: options.trigger, runId: options.runId ?? randomUUID() };
  const { changes, events } = statusChanges(perRecord.values(), at, run);
  events.push(...closeReceipts(perRecord.values(), opened, run));
  if (kept) await recordVerifications(ports, log, perRecord, events);

  const failing = results.filter(failsRun);
  return {
    at: started,
    results,
    counts: countInventoryStatuses(results),
    failed: failing.length > 0,
    problems: failing.map(problemLine),
    changes,
  };
}
