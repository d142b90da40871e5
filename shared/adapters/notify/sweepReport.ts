import {
  type CertificateResult,
  forcedDetail,
  type SweepSummary,
} from "../../core/renewal/summary.js";
import { redact } from "../../lib/redact/redact.js";

/** Chat messages list this many certificates; the rest are counted (chat platforms cap size). */
export const MAX_LISTED = 25;
/** Run-level problems listed; the rest are counted. */
export const MAX_PROBLEMS = 10;
/** One cause or problem line, in characters: enough for the service's sentence. */
const MAX_CAUSE = 240;

/** What every message format says, decided once so the formats cannot drift apart. */
export interface SweepReport {
  readonly failed: boolean;
  /** "certsched: renewal sweep failed" and the like. */
  readonly title: string;
  /** Counts in display order; "would renew" only in a dry run. (Facts in a verification notice.) */
  readonly counts: readonly { readonly label: string; readonly value: number | string }[];
  /** Failed, stuck and blocked certificates, most urgent first. */
  readonly attention: readonly CertificateResult[];
  /** One line per listed certificate (the first MAX_LISTED of `attention`). */
  readonly attentionLines: readonly string[];
  /** Certificates needing attention beyond MAX_LISTED. */
  readonly omitted: number;
  /**
   * Certificates renewed outside their renewal windows (their expiry or the CA's ARI window came
   * first), one line each with the reason: not failures, but worth a look.
   */
  readonly outside?: readonly CertificateResult[];
  readonly outsideLines?: readonly string[];
  /**
   * One line naming the certificates waiting for their window (with when it opens) and those
   * disabled by policy, briefly: not failures. Undefined when none.
   */
  readonly heldLine?: string | undefined;
  /** Run-level problems (list failure, ledger, invalid records), shortened. */
  readonly problems: readonly string[];
  /** Everything above as plain text: the fallback of chat formats. */
  readonly text: string;
}

/**
 * The account a message is about, as people read it: named when accounts are declared;
 * undefined for the one account of a deployment without declared accounts, whose messages
 * read as they always did. (The JSON format always has `account`.)
 */
export function shownAccount(
  account: string | undefined,
  named: boolean | undefined,
): string | undefined {
  return named && account !== undefined ? account : undefined;
}

/** The account's name in JSON messages: "default" when none is known. */
export const accountOf = (account: string | undefined) => account ?? "default";

/** Whitespace collapsed, secrets redacted, shortened to `max` characters. */
export function oneLine(text: string, max = MAX_CAUSE): string {
  const flat = redact(text.replace(/\s+/g, " ").trim());
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function daysText(days: number): string {
  if (days > 1) return `${days} days left`;
  if (days === 1) return "1 day left";
  if (days === 0) return "expires within a day";
  return days === -1 ? "expired 1 day ago" : `expired ${-days} days ago`;
}

/**
 * `name (target): 8 days left, failed: the cause (HTTP 400)`, on one line; a blocked
 * certificate's detail names its outcome itself (`blocked (preflight: caa-forbids): advice`).
 */
export function attentionLine(r: CertificateResult): string {
  const status = r.status !== undefined ? ` (HTTP ${r.status})` : "";
  const what = r.outcome === "blocked" ? "" : `${r.outcome}: `;
  return `${r.certificateName} (${r.target}): ${daysText(r.daysLeft)}, ${what}${oneLine(forcedDetail(r))}${status}`;
}

/** `name (target): 2 days left, renewed outside its renewal windows: why`, on one line. */
export function outsideLine(r: CertificateResult): string {
  return `${r.certificateName} (${r.target}): ${daysText(r.daysLeft)}, ${oneLine(r.window?.detail ?? r.detail)}`;
}

/** A renewal (or a dry run's would-renew) sent outside its certificate's renewal windows. */
export function renewedOutside(r: CertificateResult): boolean {
  return (
    r.window?.state === "outside" &&
    (r.outcome === "renewal-scheduled" || r.outcome === "would-renew")
  );
}

/** `Waiting for their window: a (opens …), b (frozen until …). Disabled: c.`, or undefined. */
export function heldLine(results: readonly CertificateResult[]): string | undefined {
  const waiting = results.filter((r) => r.outcome === "waiting");
  const disabled = results.filter((r) => r.outcome === "disabled");
  const named = (list: readonly CertificateResult[], word: (r: CertificateResult) => string) => {
    const shown = list
      .slice(0, MAX_LISTED)
      .map((r) => `${oneLine(r.certificateName, 80)}${word(r)}`);
    const more = list.length - shown.length;
    return `${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
  };
  const parts = [
    ...(waiting.length > 0
      ? [
          `Waiting for their window (not failures): ${named(waiting, (r) =>
            r.window?.frozen
              ? ` (frozen until ${r.window.frozen.until})`
              : r.window?.opensAtLocal
                ? ` (opens ${r.window.opensAtLocal})`
                : "",
          )}.`,
        ]
      : []),
    ...(disabled.length > 0 ? [`Disabled by policy: ${named(disabled, () => "")}.`] : []),
  ];
  return parts.length > 0 ? parts.join(" ") : undefined;
}

function title(summary: SweepSummary, account: string | undefined): string {
  const dry = `${summary.dryRun ? " (dry run)" : ""}${summary.forced ? " (forced)" : ""}`;
  const of = account === undefined ? "" : ` of account ${oneLine(account, 60)}`;
  return summary.failed
    ? `certsched: renewal sweep${of} failed${dry}`
    : `certsched: renewal sweep${of} succeeded${dry}`;
}

/**
 * The content of a sweep notification, independent of the format it is posted in. `named`:
 * accounts are declared, so the title and the facts name the summary's account.
 */
export function sweepReport(summary: SweepSummary, named = false): SweepReport {
  const c = summary.counts;
  const account = shownAccount(summary.account, named);
  const counts = [
    ...(account === undefined ? [] : [{ label: "Account", value: account }]),
    { label: "Due", value: c.due },
    summary.dryRun
      ? { label: "Would renew", value: c["would-renew"] }
      : { label: "Renewal scheduled", value: c["renewal-scheduled"] },
    { label: "Skipped", value: c.skipped },
    { label: "Failed", value: c.failed },
    { label: "Stuck", value: c.stuck },
    // Only when there are: messages without a preflight read as they always did.
    ...((c.blocked ?? 0) > 0 ? [{ label: "Blocked", value: c.blocked }] : []),
    // Stored counts from before the renewal calendar have neither.
    ...((c.waiting ?? 0) > 0 ? [{ label: "Waiting for window", value: c.waiting }] : []),
    ...((c.disabled ?? 0) > 0 ? [{ label: "Disabled", value: c.disabled }] : []),
  ];
  const attention = summary.results
    .filter((r) => r.outcome === "failed" || r.outcome === "stuck" || r.outcome === "blocked")
    .sort((a, b) => a.daysLeft - b.daysLeft || a.certificateName.localeCompare(b.certificateName));
  const attentionLines = attention.slice(0, MAX_LISTED).map(attentionLine);
  const omitted = attention.length - attentionLines.length;
  const problems = summary.problems.slice(0, MAX_PROBLEMS).map((p) => oneLine(p));
  if (summary.problems.length > MAX_PROBLEMS) {
    problems.push(`…and ${summary.problems.length - MAX_PROBLEMS} more problem(s)`);
  }
  const t = title(summary, account);
  const outside = summary.results.filter(renewedOutside);
  const outsideLines = outside.slice(0, MAX_LISTED).map(outsideLine);
  const held = heldLine(summary.results);
  const lines = [
    t,
    counts.map((x) => `${x.label}: ${x.value}`).join(", "),
    ...attentionLines,
    ...(omitted > 0 ? [`…and ${omitted} more certificate(s) needing attention`] : []),
    ...outsideLines,
    ...(held ? [held] : []),
    ...problems.map((p) => `Problem: ${p}`),
  ];
  return {
    failed: summary.failed,
    title: t,
    counts,
    attention,
    attentionLines,
    omitted,
    outside,
    outsideLines,
    ...(held ? { heldLine: held } : {}),
    problems,
    text: lines.join("\n"),
  };
}
