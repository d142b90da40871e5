import { daysLeft } from "../dates.js";
import { ensureError, isCertschedError, UpstreamError } from "../errors.js";
import { type Ledger, type LedgerEntry, type LedgerRecord, noLedger } from "../ledger/ledger.js";
import type { Logger } from "../log.js";
import { redact } from "../redact.js";
import type { CertificateRecord } from "../schemas/records.js";
import { recordWarnings } from "../schemas/recordWarnings.js";
import type { DueList } from "../service/responses.js";
import { decide } from "./decide.js";
import { mapWithConcurrency } from "./pool.js";
import {
  type CertificateResult,
  countOutcomes,
  resultLine,
  type SweepSummary,
  summaryLine,
} from "./summary.js";

export interface SweepOptions {
  /** The service operations a sweep needs (a ServiceClient). */
  readonly client: {
    listDue(): Promise<DueList>;
    renewListed(certificate: CertificateRecord): Promise<string>;
  };
  readonly ledger: Ledger;
  readonly log: Logger;
  readonly now: () => Date;
  /** Renewals in flight at once. */
  readonly concurrency: number;
  /** Skip a certificate whose renewal was requested within this many ms. */
  readonly graceMs: number;
  /** List and decide, renew nothing. */
  readonly dryRun: boolean;
  /** Called as each certificate finishes (the CLI's progress line). */
  readonly onResult?: (result: CertificateResult, done: number, total: number) => void;
}

function describe(error: unknown): { detail: string; status?: number; error?: string } {
  const e = ensureError(error);
  return {
    detail: redact(e.message),
    ...(e instanceof UpstreamError && e.status !== undefined ? { status: e.status } : {}),
    ...(isCertschedError(e) ? { error: e.code } : {}),
  };
}

/**
 * The renewal sweep: list what is due, decide for each certificate, renew with bounded
 * concurrency, record each step in the ledger, summarise. Never throws: a failure of the list,
 * the ledger or any renewal is in the summary, and `failed` says whether the run must be
 * reported as failed.
 */
export async function runSweep(options: SweepOptions): Promise<SweepSummary> {
  const { log, now } = options;
  const startedAt = now();
  const started = performance.now();
  const problems: string[] = [];
  let ledger = options.ledger;
  let ledgerState: SweepSummary["ledger"] = ledger.kind;

  const ledgerProblem = (error: unknown) => {
    const message = `renewal ledger unavailable, continuing without duplicate protection: ${ensureError(error).message}`;
    if (!problems.includes(message)) {
      problems.push(message);
      log.error(`certsched ${message}`);
    }
    ledgerState = "unavailable";
  };

  if (ledger.kind === "none") {
    log.warn(
      "certsched: no storage configured (AzureWebJobsStorage): sweeping without a ledger, so recent requests and stuck renewals are not tracked",
    );
  } else {
    try {
      await ledger.open();
    } catch (error) {
      ledgerProblem(error);
      // Every read would fail the same way, slowly: go on without it for this sweep.
      ledger = noLedger;
    }
  }

  const finish = (results: CertificateResult[], due: DueList | undefined, listError?: string) => {
    const rejected = due?.rejected ?? [];
    for (const r of rejected) {
      problems.push(
        `record ${r.index} of the list (${r.certificateName ?? "unnamed"}) is invalid: ${r.problems
          .map((p) => `${p.name} ${p.message}`)
          .join("; ")}`,
      );
    }
    const counts = countOutcomes(results, rejected.length);
    // Names, so the failed run's message says which certificates to look at.
    const named = (outcome: CertificateResult["outcome"]) =>
      results
        .filter((r) => r.outcome === outcome)
        .map((r) => r.certificateName)
        .join(", ");
    if (counts.failed - rejected.length > 0) {
      problems.push(`${counts.failed - rejected.length} renewal(s) failed: ${named("failed")}`);
    }
    if (counts.stuck > 0) problems.push(`${counts.stuck} certificate(s) stuck: ${named("stuck")}`);
    const summary: SweepSummary = {
      dryRun: options.dryRun,
      startedAt: startedAt.toISOString(),
      durationMs: Math.round(performance.now() - started),
      ledger: ledgerState,
      ...(listError ? { listError } : {}),
      results,
      rejected,
      counts,
      failed:
        listError !== undefined ||
        counts.failed > 0 ||
        counts.stuck > 0 ||
        ledgerState === "unavailable",
      problems,
    };
    const line = summaryLine(summary);
    if (summary.failed) log.error(line);
    else log.info(line);
    return summary;
  };

  let due: DueList;
  try {
    due = await options.client.listDue();
  } catch (error) {
    const message = describe(error).detail;
    problems.push(message);
    log.error(`certsched sweep could not list certificates: ${message}`);
    return finish([], undefined, message);
  }
  // Fields certsched keeps but does not read, in a type the spec does not document: once a sweep.
  for (const warning of recordWarnings(due.certificates)) log.warn(`certsched: ${warning}`);

  // The same id twice in one list must not become two renewals.
  const seen = new Set<number>();
  const certificates = due.certificates.filter((c) => !seen.has(c.id) && seen.add(c.id));
  let done = 0;

  const write = async (record: LedgerRecord, etag: string | undefined) => {
    try {
      return await ledger.write(record, etag);
    } catch (error) {
      ledgerProblem(error);
      return undefined;
    }
  };

  const handle = async (cert: CertificateRecord): Promise<CertificateResult> => {
    const at = now();
    const base = {
      certificateName: cert.certificateName,
      id: cert.id,
      target: cert.target,
      expiryDate: cert.expiryDate.toISOString(),
      daysLeft: daysLeft(cert.expiryDate, at),
    };
    let entry: LedgerEntry | undefined;
    try {
      entry = await ledger.read(cert.id);
    } catch (error) {
      ledgerProblem(error);
    }
    const verdict = decide({
      expiryDate: cert.expiryDate,
      record: entry?.record,
      now: at,
      graceMs: options.graceMs,
    });
    if (verdict.action === "skip") return { ...base, outcome: "skipped", detail: verdict.message };
    const stuck = verdict.action === "stuck";
    if (stuck && !verdict.renew) return { ...base, outcome: "stuck", detail: verdict.message };
    if (options.dryRun) {
      return { ...base, outcome: stuck ? "stuck" : "would-renew", detail: verdict.message };
    }

    // Claim the certificate before calling the service: a concurrent sweep that read the same
    // version loses the conditional write and skips it.
    const previous = verdict.reason === "NewRenewal" ? undefined : entry?.record;
    const claim: LedgerRecord = {
      id: cert.id,
      certificateName: cert.certificateName,
      expiryAtRequest: cert.expiryDate,
      firstRequestedAt: previous?.firstRequestedAt ?? at,
      lastRequestedAt: at,
      outcome: "requesting",
      attempts: (previous?.attempts ?? 0) + 1,
      detail: undefined,
    };
    const claimed = await write(claim, entry?.etag);
    if (claimed === "conflict") {
      return { ...base, outcome: "skipped", detail: "another sweep is renewing it right now" };
    }
    try {
      const message = await options.client.renewListed(cert);
      await write(
        { ...claim, outcome: stuck ? "stuck" : "renewal-scheduled", detail: message },
        claimed?.etag,
      );
      return stuck
        ? { ...base, outcome: "stuck", detail: verdict.message }
        : { ...base, outcome: "renewal-scheduled", detail: message.trim() || "renewal scheduled" };
    } catch (error) {
      const failure = describe(error);
      // No answer in time: the service may have scheduled it all the same. Keep the request
      // on record ("requesting": sent, answer unknown) so the next sweeps wait out the grace
      // window instead of ordering a second renewal; the run still fails and names the cause.
      const unanswered = isCertschedError(error) && error.code === "UPSTREAM_TIMEOUT";
      await write(
        unanswered
          ? { ...claim, detail: failure.detail }
          : {
              ...claim,
              firstRequestedAt: previous?.firstRequestedAt,
              lastRequestedAt: previous?.lastRequestedAt,
              outcome: "failed",
              detail: failure.detail,
            },
        claimed?.etag,
      );
      return { ...base, outcome: "failed", ...failure };
    }
  };

  const results = await mapWithConcurrency(certificates, options.concurrency, async (cert) => {
    const result = await handle(cert).catch(
      (error: unknown): CertificateResult => ({
        certificateName: cert.certificateName,
        id: cert.id,
        target: cert.target,
        expiryDate: cert.expiryDate.toISOString(),
        daysLeft: daysLeft(cert.expiryDate, now()),
        outcome: "failed",
        ...describe(error),
      }),
    );
    const line = resultLine(result);
    if (result.outcome === "failed" || result.outcome === "stuck") log.error(line);
    else log.info(line);
    done += 1;
    options.onResult?.(result, done, certificates.length);
    return result;
  });
  return finish(results, due);
}
