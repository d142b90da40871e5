import { type AriRecord, ariRecordOf, dueToAsk, mayReport } from "../../core/ari/ariRecord.js";
import { directoryFor } from "../../core/ari/ariSettings.js";
import type { Ari, AriQuestion } from "../../core/ports/ari.js";
import type { Inventory, InventoryRecord } from "../../core/ports/inventory.js";
import type { Settings } from "../../core/settings.js";
import type { Check } from "../../core/verification/plan.js";
import { ensureError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { mapWithConcurrency } from "../../lib/pool.js";
import { redact } from "../../lib/redact/redact.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { someNames } from "../../lib/text/names.js";
import { ARI_QUESTION, type CheckResult, STORAGE_CONCURRENCY } from "./runCheck.js";

/**
 * The CA's own word (ARI): after a verification run has read the certificates,
 * each one whose issuer has an ACME directory (CERTSCHED_ARI_DIRECTORIES) is asked about, at
 * most once before the time the CA said (Retry-After, kept with the inventory row so another
 * process honours it too). Nothing here ever fails the run: ARI never blocks anything, and a CA
 * that does not answer is reported at most once a day per directory.
 */

export interface AskAriPorts {
  /** Absent `ari`: no ARI settings, no ARI. */
  readonly settings: Partial<Pick<Settings, "ari">>;
  /** Absent: no ARI (a caller without it, as some tests build). */
  readonly ari?: Ari | undefined;
  readonly inventory: Pick<Inventory, "kind"> & Partial<Pick<Inventory, "recordAri">>;
  readonly now: () => Date;
}

/** One certificate read by the run: its record and what ARI asks with. */
export interface ServedForAri {
  readonly record: InventoryRecord;
  readonly question: AriQuestion;
}

/** A certificate with the CA's word on it, after the run (kept or newly asked). */
export interface AriReading {
  readonly record: InventoryRecord;
  readonly ari: AriRecord;
}

/** CA requests at once: one keep-alive client, and a CA rate-limits. */
export const ARI_CONCURRENCY = 8;

/**
 * Each record's certificate as this run read it (its first check that read one with a CertID):
 * a domain several records name is asked about once per record, answered from the client's cache.
 */
export function servedForAri(
  checks: readonly Check[],
  results: readonly CheckResult[],
): ServedForAri[] {
  const byName = new Map<string, ServedForAri>();
  checks.forEach((check, i) => {
    const question = results[i]?.[ARI_QUESTION];
    if (!question) return;
    for (const record of check.owners) {
      if (!byName.has(record.certificateName))
        byName.set(record.certificateName, { record, question });
    }
  });
  return [...byName.values()];
}

/**
 * Asks the CAs about the certificates read (those whose nextAskAt has come, or that changed),
 * stores each answer with its row, and logs a failing directory at most once a day. Returns every
 * certificate with a CA's word on it, asked now or kept.
 */
export async function askAri(
  ports: AskAriPorts,
  log: Logger,
  served: readonly ServedForAri[],
): Promise<AriReading[]> {
  const { ari } = ports;
  const settingsOf = ports.settings.ari;
  if (!ari || !settingsOf || served.length === 0) return [];
  let directories: ReturnType<Settings["ari"]>["directories"];
  try {
    directories = settingsOf().directories;
  } catch (error) {
    log.warn(
      `certsched ARI is off for this run (the CA's renewal information is not asked): ${redact(ensureError(error).message)}`,
    );
    return [];
  }
  if (directories.length === 0) return [];
  const mine = served.filter((s) => directoryFor(directories, s.question.issuer) !== undefined);
  const now = ports.now();
  const asked = await mapWithConcurrency(mine, ARI_CONCURRENCY, async (s) => {
    const kept = s.record.ari;
    if (!dueToAsk(kept, s.question.certId, now)) return { s, ari: kept, fresh: false };
    const answer = await ari.ask(s.question);
    return { s, ari: ariRecordOf(answer, kept, ports.now()) ?? kept, fresh: true };
  });
  const readings = asked.flatMap((a) =>
    a.ari ? [{ record: a.s.record, ari: a.ari, fresh: a.fresh }] : [],
  );
  const reported = reportFailures(readings, log, now, lastReports(readings));
  const stored = reported.filter((r) => r.fresh);
  await store(ports, log, stored);
  return reported.map(({ record, ari: kept }) => ({ record, ari: kept }));
}

/** When each directory's failure was last reported, as the rows of this run keep it. */
function lastReports(readings: readonly { record: InventoryRecord }[]): Map<string, Date> {
  const last = new Map<string, Date>();
  for (const { record } of readings) {
    const a = record.ari;
    if (!a?.reportedAt) continue;
    const before = last.get(a.directoryUrl);
    if (!before || before < a.reportedAt) last.set(a.directoryUrl, a.reportedAt);
  }
  return last;
}

type Reading = AriReading & { readonly fresh: boolean };

/** One warning per failing directory, at most once a day; the rows say when it was. */
function reportFailures(
  readings: readonly Reading[],
  log: Logger,
  now: Date,
  lastReported: ReadonlyMap<string, Date>,
): Reading[] {
  const failing = new Map<string, Reading[]>();
  for (const r of readings) {
    if (!r.fresh || r.ari.problem === undefined) continue;
    failing.set(r.ari.directoryUrl, [...(failing.get(r.ari.directoryUrl) ?? []), r]);
  }
  const reportedNow = new Set<string>();
  for (const [directory, rows] of failing) {
    if (!mayReport(lastReported.get(directory), now)) continue;
    reportedNow.add(directory);
    const first = rows[0] as Reading;
    const names = someNames(rows.map((r) => r.record.certificateName));
    log.warn(
      `certsched ARI: ${escapeControl(directory)} unreachable (${escapeControl(redact(first.ari.problem ?? ""))}) for ${names}; verification and renewals go on without the CA's word, asked again after ${first.ari.nextAskAt.toISOString()} (reported once a day)`,
    );
  }
  return readings.map((r) =>
    r.fresh && r.ari.problem !== undefined && reportedNow.has(r.ari.directoryUrl)
      ? { ...r, ari: { ...r.ari, reportedAt: now } }
      : r,
  );
}

/** Each fresh answer kept with its row; a failure to store is one warning. */
async function store(ports: AskAriPorts, log: Logger, readings: readonly Reading[]): Promise<void> {
  const recordAri = ports.inventory.recordAri;
  if (ports.inventory.kind === "none" || !recordAri || readings.length === 0) return;
  const unsaved: { name: string; why: string }[] = [];
  await mapWithConcurrency(readings, STORAGE_CONCURRENCY, async (r) => {
    try {
      await recordAri.call(ports.inventory, r.record.certificateName, r.ari);
    } catch (error) {
      unsaved.push({ name: r.record.certificateName, why: ensureError(error).message });
    }
  });
  const first = unsaved[0];
  if (first) {
    log.warn(
      `certsched could not keep the CA's renewal information of ${someNames(unsaved.map((u) => u.name))} (it is asked again on the next run): ${redact(first.why)}`,
    );
  }
}
