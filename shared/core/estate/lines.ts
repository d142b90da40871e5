import { boundDetail } from "../../lib/text/boundDetail.js";
import { DAY_MS } from "../../lib/time.js";
import type { EstateBinding, EstateCertificate } from "./estate.js";
import type { EstateEntry, EstateReport, Gap } from "./report.js";

/**
 * The estate's lines for logs, the alert rule and the webhook: one per entry, one summary. Every
 * value in them came from an upstream, so each is escaped and bounded, and each line as a whole.
 */

/** The start of the line the alert rule matches (one per certificate entering the set). */
export const ESTATE_ALERT_LINE = "certsched estate alert: ";
export const ESTATE_SUMMARY_LINE = "certsched estate summary: ";
export const ESTATE_ENTRY_LINE = "certsched estate certificate: ";

/** Longest line, in characters. */
export const MAX_ESTATE_LINE = 1000;
/** Bindings named in a line; the rest are counted. */
export const MAX_BINDINGS_SHOWN = 3;

/** Text in double quotes: escaped, at most `max` characters, a quote inside written \". */
function quoted(text: string, max = 120): string {
  return `"${boundDetail(text, max).replaceAll('"', '\\"')}"`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function expiry(certificate: EstateCertificate, now: Date): string {
  const at = certificate.expiresAt;
  if (at === undefined) return "expiry unknown";
  const left = at.getTime() - now.getTime();
  return left < 0
    ? `expired ${at.toISOString()} (${plural(Math.ceil(-left / DAY_MS), "day")} ago)`
    : `expires ${at.toISOString()} (${plural(Math.floor(left / DAY_MS), "day")})`;
}

function binding(b: EstateBinding): string {
  return `${b.kind} ${boundDetail(b.hostName ?? b.resourceId, 150)}`;
}

/** Where a certificate is bound, in a few words: the first MAX_BINDINGS_SHOWN, the rest counted. */
export function bindings(certificate: EstateCertificate): string {
  const all = certificate.boundTo;
  if (all.length === 0) return '"nothing"';
  const shown = all.slice(0, MAX_BINDINGS_SHOWN).map(binding).join(", ");
  return all.length > MAX_BINDINGS_SHOWN
    ? `${shown} and ${all.length - MAX_BINDINGS_SHOWN} more`
    : shown;
}

function place(certificate: EstateCertificate): string {
  const group = certificate.resourceGroup;
  return `in ${boundDetail(certificate.subscriptionId, 60)}${group === undefined ? "" : `/${boundDetail(group, 100)}`}`;
}

function head(prefix: string, account: string, certificate: EstateCertificate): string {
  return `${prefix}${quoted(certificate.name)} (${certificate.kind}) of account ${quoted(account, 60)}`;
}

/** The alert line of an unmanaged certificate that entered the unmanaged-and-expiring set. */
export function estateAlertLine(account: string, entry: EstateEntry, now: Date): string {
  const c = entry.certificate;
  const line = `${ESTATE_ALERT_LINE}unmanaged certificate ${quoted(c.name)} (${c.kind}) of account ${quoted(account, 60)} ${expiry(c, now)}: bound to ${bindings(c)}; ${place(c)}`;
  return boundDetail(line, MAX_ESTATE_LINE);
}

const GAP_WORDS: Record<Gap, string> = {
  "unmanaged-expiring": "expiring",
  "different-certificate": "a host name certsched renews",
  "bound-nowhere": "bound nowhere",
};

/** One line per report entry, for logs. */
export function estateEntryLine(account: string, entry: EstateEntry, now: Date): string {
  const c = entry.certificate;
  const who =
    entry.managedBy === undefined
      ? `unmanaged${entry.gaps.length > 0 ? ` (${entry.gaps.map((g) => GAP_WORDS[g]).join(", ")})` : ""}`
      : `managed as ${quoted(entry.managedBy)} (by ${entry.match})`;
  const line = `${head(ESTATE_ENTRY_LINE, account, c)}: ${who}; ${expiry(c, now)}; bound to ${bindings(c)}; ${place(c)}`;
  return boundDetail(line, MAX_ESTATE_LINE);
}

/** The report in one line. */
export function estateSummaryLine(report: EstateReport): string {
  const n = report.counts;
  const line = [
    `${ESTATE_SUMMARY_LINE}account ${quoted(report.account, 60)}: ${plural(n.certificates, "certificate")}`,
    `${n.managed} managed`,
    `${n["unmanaged-expiring"]} unmanaged and expiring within ${plural(report.expiringDays, "day")}`,
    `${n["different-certificate"]} on a host name certsched renews but not its certificate`,
    `${n["bound-nowhere"]} unmanaged and bound nowhere`,
    `${plural(report.problems.length, "part")} not read`,
    `${report.truncated} left out at a bound`,
  ].join(", ");
  return boundDetail(line, MAX_ESTATE_LINE);
}
