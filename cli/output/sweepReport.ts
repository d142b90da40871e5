import { blockedWord } from "../../shared/core/preflight/blocking.js";
import type { CertificateResult, SweepSummary } from "../../shared/core/renewal/summary.js";
import { forcedDetail, OUTCOMES, unresolvedAnswers } from "../../shared/core/renewal/summary.js";
import { type FailureFacts, shortCause, statusOf, type Where, whereToLook } from "./cause.js";
import type { Paint, Palette } from "./color.js";
import { formatExpiry } from "./expiry.js";
import { renderTable } from "./table.js";
import { append, oneLine, wrapToWidth } from "./text.js";

/** Outcomes that need nothing from anyone; every other outcome gets its cause under the table. */
const FINE: ReadonlySet<string> = new Set(["renewal-scheduled", "would-renew"]);

function outcomePaint(outcome: string, paint: Palette): Paint {
  const paints: Readonly<Record<string, Paint>> = {
    "renewal-scheduled": paint.green,
    "would-renew": paint.cyan,
    skipped: paint.dim,
    stuck: paint.yellow,
    // Held by the calendar, as declared: nothing for a person to do.
    waiting: paint.cyan,
    disabled: paint.dim,
  };
  // Failed, and any outcome added later that this table does not know yet: red, to be read.
  return paints[outcome] ?? paint.red;
}

/**
 * The outcome as shown: a deferral says why ("deferred (quota)"), a blocked certificate its
 * preflight's reason ("blocked (preflight: caa-forbids)").
 */
function outcomeText(r: CertificateResult): string {
  if (r.outcome === "blocked" && r.blockedBy) return blockedWord(r.blockedBy);
  if (r.outcome === "waiting") {
    if (r.window?.frozen) return "waiting (frozen)";
    return r.window?.opensAtLocal ? `waiting (opens ${r.window.opensAtLocal})` : "waiting";
  }
  if (r.window?.state === "outside") return `${r.outcome} (outside window)`;
  return r.outcome === "deferred" && r.reason === "QuotaReached" ? "deferred (quota)" : r.outcome;
}

/** The request count and the budget, when the run knows them. */
function requestsLine(summary: SweepSummary): string | undefined {
  if (summary.requests7d === undefined && !summary.quota) return undefined;
  const count =
    summary.requests7d === undefined
      ? undefined
      : `Requests sent to the service in the last 7 days: ${summary.requests7d}`;
  const q = summary.quota;
  const quota = q
    ? `CERTSCHED_SERVICE_QUOTA ${q.limit}: ${q.used} used when the renewals started, ${q.remaining} left${q.warning ? " (80 % or more used)" : ""}`
    : undefined;
  return `${[count, quota].filter((part) => part !== undefined).join("; ")}.`;
}

export function daysPaint(daysLeft: number, paint: Palette): Paint | undefined {
  if (daysLeft < 0) return paint.red;
  if (daysLeft <= 7) return paint.yellow;
  return undefined;
}

const LEDGER_NOTE: Readonly<Record<string, string>> = {
  table: "Ledger: Azure Table storage (shared with the function app)",
  memory: "Ledger: in memory, for this run only",
  none: "Ledger: none (recent requests and stuck renewals are not tracked between runs)",
  unavailable: "Ledger: unavailable (no renewal was started without it)",
};

/** Outcomes worded in one line each, after the problems: routine, nothing for a person to do. */
const ROUTINE: ReadonlySet<string> = new Set(["skipped", "waiting", "disabled"]);

/**
 * Problems first (failed, stuck, blocked, ...), renewals forced past their preflight and those
 * sent outside their renewal windows, then skipped, waiting and disabled: what needs a person
 * comes first.
 */
function needsWords(results: readonly CertificateResult[]): CertificateResult[] {
  const problems = results.filter(
    (r) =>
      (!FINE.has(r.outcome) && !ROUTINE.has(r.outcome)) ||
      r.forcedPast !== undefined ||
      (FINE.has(r.outcome) && r.window?.state === "outside"),
  );
  const routine = results.filter((r) => ROUTINE.has(r.outcome));
  return [...problems, ...routine];
}

/** How the count line names an outcome: "2 waiting for their window", "1 disabled". */
const COUNT_WORDS: Readonly<Record<string, string>> = { waiting: "waiting for their window" };

/**
 * One certificate's cause, in full: its name and outcome, then the cause wrapped to the width
 * (never cut) and, for a failure, where to look.
 */
function causeLines(
  r: CertificateResult,
  paint: Palette,
  width: number | undefined,
  where: Where | undefined,
): string[] {
  const head = `${oneLine(r.certificateName)} ${outcomePaint(r.outcome, paint)(outcomeText(r))}:`;
  // A skip is routine (requested recently, another sweep has it): one line each, not two; so is
  // a certificate its calendar holds (waiting for its window, disabled).
  if (ROUTINE.has(r.outcome)) {
    return wrapToWidth(`${head} ${oneLine(shortCause(r.detail))}`, width, "", "  ");
  }
  const lines = wrapToWidth(head, width);
  append(lines, wrapToWidth(oneLine(shortCause(forcedDetail(r))), width, "  "));
  if (r.outcome === "failed") {
    const hint = whereToLook(
      { upstream: "publicRenew", code: r.error, status: r.status, text: r.detail },
      where,
    );
    if (hint) append(lines, wrapToWidth(oneLine(hint), width, "  "));
  }
  return lines;
}

/**
 * What the list's failure was, read back from its message (the summary keeps text only): the
 * identity provider's or the service's, unreachable, timed out or answered with a status.
 */
function listFailureFacts(text: string): FailureFacts {
  const token = /^Identity provider/.test(text);
  const code = /unreachable|cannot reach the service/.test(text)
    ? token
      ? "TOKEN_UNAVAILABLE"
      : "UPSTREAM_UNREACHABLE"
    : /no answer within the timeout/.test(text)
      ? token
        ? "TOKEN_UNAVAILABLE"
        : "UPSTREAM_TIMEOUT"
      : undefined;
  return { upstream: token ? "token" : "list", code, status: statusOf(text), text };
}

/**
 * Certificates not asked for because their last request's answer is unknown (its sweep crashed
 * or timed out after sending it): each by name, when and by which run it was sent, and what
 * happens next.
 */
function unresolvedLines(summary: SweepSummary): string[] {
  const waiting = unresolvedAnswers(summary.results);
  if (waiting.length === 0) return [];
  return [
    `${waiting.length} certificate(s) not asked for: the answer to their last renewal request is unknown (a sweep that crashed or timed out; the service completes within an hour, so each is asked again if still due an hour after):`,
    ...waiting.map(
      (u) =>
        `- ${u.name}: sent ${u.since}${u.runId ? ` by run ${u.runId}` : ""}${
          u.overdue ? ", over an hour ago: the sweep fails until it is asked again" : ""
        }`,
    ),
  ];
}

/**
 * The sweep for people: a table of certificates that fits the terminal, then the cause of each
 * certificate that did not simply renew, then the counts and what failed.
 */
export function renderSweep(
  summary: SweepSummary,
  paint: Palette,
  width?: number,
  where?: Where,
): string[] {
  const lines: string[] = [];
  if (summary.listError !== undefined) {
    // Nothing was decided: "0 due" would read as "all is well".
    append(
      lines,
      wrapToWidth(
        paint.red("The list of certificates due failed: nothing was decided or renewed."),
        width,
      ),
    );
    append(lines, wrapToWidth(oneLine(shortCause(summary.listError)), width, "  "));
    const hint = whereToLook(listFailureFacts(summary.listError), where);
    if (hint) append(lines, wrapToWidth(oneLine(hint), width, "  "));
  } else if (summary.results.length === 0 && summary.rejected.length === 0) {
    lines.push("Nothing is due for renewal.");
  } else if (summary.results.length > 0) {
    // Soonest expiry first: what needs a person's attention comes first.
    const results = [...summary.results].sort((a, b) => a.expiryDate.localeCompare(b.expiryDate));
    const rows = results.map((r) => [
      r.certificateName,
      r.target,
      { text: formatExpiry(r.expiryDate, r.daysLeft), paint: daysPaint(r.daysLeft, paint) },
      { text: outcomeText(r), paint: outcomePaint(r.outcome, paint) },
    ]);
    append(
      lines,
      renderTable(
        [
          { heading: "CERTIFICATE", shrink: 1 },
          { heading: "TARGET", shrink: 2 },
          { heading: "EXPIRES (UTC)" },
          { heading: "OUTCOME" },
        ],
        rows,
        { header: paint.bold, width },
      ),
    );
    const worded = needsWords(results);
    if (worded.length > 0) lines.push("");
    for (const r of worded) append(lines, causeLines(r, paint, width, where));
  }
  for (const r of summary.rejected) {
    const name = r.certificateName === undefined ? "" : ` (${r.certificateName})`;
    append(lines, wrapToWidth(oneLine(`record ${r.index} of the list${name} rejected:`), width));
    const problems = r.problems.map((p) => `${p.name} ${p.message}`).join("; ");
    append(lines, wrapToWidth(oneLine(problems), width, "  "));
  }
  lines.push("");
  const ledger = LEDGER_NOTE[summary.ledger] ?? `Ledger: ${summary.ledger}`;
  const dry = `${summary.dryRun ? "Dry run: nothing was renewed. " : ""}${
    summary.forced ? "Forced: renewed past any preflight that blocked it. " : ""
  }`;
  if (summary.listError === undefined) {
    const counts = OUTCOMES.filter((o) => (summary.counts[o] ?? 0) > 0).map(
      (o) => `${summary.counts[o]} ${COUNT_WORDS[o] ?? o}`,
    );
    const due = `${summary.counts.due} due${counts.length > 0 ? `: ${counts.join(", ")}` : ""}`;
    append(lines, wrapToWidth(`${due}. ${dry}${ledger}.`, width));
  } else {
    append(lines, wrapToWidth(`${dry}${ledger}.`, width));
  }
  for (const line of unresolvedLines(summary)) {
    append(lines, wrapToWidth(paint.yellow(line), width, "", "  "));
  }
  const requests = requestsLine(summary);
  if (requests) {
    append(lines, wrapToWidth(summary.quota?.warning ? paint.yellow(requests) : requests, width));
  }
  if (summary.failed) {
    lines.push(paint.red("The sweep failed:"));
    for (const problem of summary.problems) {
      append(lines, wrapToWidth(oneLine(`- ${problem}`), width, "  ", "    "));
    }
  }
  return lines;
}
