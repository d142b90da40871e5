import type { InventoryRecord, VerificationRecord } from "../../core/ports/inventory.js";
import type { VerificationNotice } from "../../core/ports/notifier.js";
import { needsPerson } from "../../core/verification/verificationSummary.js";
import { redact } from "../../lib/redact/redact.js";
import type {
  InventoryResult,
  InventoryVerification,
  StatusChange,
} from "../../usecases/steps/verifyInventory.js";
import { slackMessage } from "./slackMessage.js";
import { oneLine, type SweepReport } from "./sweepReport.js";
import { teamsMessage } from "./teamsMessage.js";
import type { WebhookFormat } from "./webhookFormat.js";

/**
 * Webhook messages of a verification run (issue 12): one per certificate that changed into a
 * state that needs a person, and one per certificate back to `ok` from such a state. A status
 * that stays bad is not repeated: the alert and the failed timer run keep saying it.
 */

/** The inventory as it was before the run: it tells a crossing within one status. */
export interface BeforeRun {
  readonly records: readonly InventoryRecord[];
  /** CERTSCHED_VERIFY_UNREACHABLE_AFTER, ms. */
  readonly unreachableAfterMs: number;
}

type Who = { readonly certificateName?: string | undefined; readonly domain: string };

const same = (a: Who, b: Who) => a.certificateName === b.certificateName && a.domain === b.domain;
const keyOf = (w: Who) => `${w.certificateName ?? ""}\u0000${w.domain}`;

/** The stored verification of a certificate (by name) or of a watched endpoint (by domain). */
function previous(before: BeforeRun | undefined, who: Who): VerificationRecord | undefined {
  const record = before?.records.find((r) =>
    who.certificateName !== undefined
      ? r.certificateName === who.certificateName
      : r.lastVerification?.domain === who.domain,
  );
  return record?.lastVerification;
}

/** Whether the stored verification needed a person, as of when it was made. */
function neededPerson(v: VerificationRecord, unreachableAfterMs: number): boolean {
  const pastGrace =
    v.unreachableSince !== undefined &&
    v.at.getTime() - v.unreachableSince.getTime() >= unreachableAfterMs;
  return needsPerson({ status: v.status, critical: v.critical, pastGrace });
}

function fromChange(
  change: StatusChange,
  result: InventoryResult | undefined,
  before: BeforeRun | undefined,
): VerificationNotice | undefined {
  const now = { status: change.to, critical: change.critical, pastGrace: result?.pastGrace };
  const base = {
    certificateName: change.certificateName,
    domain: change.domain,
    from: change.from,
    to: change.to,
    critical: change.critical,
    pastGrace: result?.pastGrace === true,
    result,
  };
  if (needsPerson(now)) return { kind: "bad", ...base };
  if (change.to !== "ok" || change.from === undefined) return undefined;
  // Back to ok: only from a state that needed a person (the stored one says whether a
  // critical or past-grace flag made it so; without it, only the always-bad statuses count).
  const stored = previous(before, change);
  const was =
    stored !== undefined && stored.status === change.from && before !== undefined
      ? neededPerson(stored, before.unreachableAfterMs)
      : needsPerson({ status: change.from });
  return was ? { kind: "recovered", ...base } : undefined;
}

/**
 * The notices of a run. `changes` says which statuses changed; the inventory as it was before
 * the run adds the crossings within one status that `changes` cannot show: `expiring` turning
 * critical, `unreachable` passing its grace.
 */
export function verificationNotices(
  verification: InventoryVerification,
  before?: BeforeRun,
): VerificationNotice[] {
  const notices: VerificationNotice[] = [];
  const seen = new Set<string>();
  for (const change of verification.changes) {
    // A domain several certificates share has one result, under the first one's name.
    const result =
      verification.results.find((r) => same(r, change)) ??
      verification.results.find((r) => r.domain === change.domain);
    const notice = fromChange(change, result, before);
    if (notice && !seen.has(keyOf(notice))) {
      seen.add(keyOf(notice));
      notices.push(notice);
    }
  }
  if (!before) return notices;
  for (const result of verification.results) {
    if (seen.has(keyOf(result)) || !needsPerson(result)) continue;
    const stored = previous(before, result);
    if (stored?.status !== result.status || neededPerson(stored, before.unreachableAfterMs)) {
      continue; // a change (handled above), never verified (a change too), or already bad
    }
    seen.add(keyOf(result));
    notices.push({
      kind: "bad",
      certificateName: result.certificateName,
      domain: result.domain,
      from: stored.status,
      to: result.status,
      critical: result.critical === true,
      pastGrace: result.pastGrace === true,
      result,
    });
  }
  return notices;
}

function statusText(n: Pick<VerificationNotice, "to" | "critical" | "pastGrace">): string {
  if (n.to === "expiring" && n.critical) return "critically expiring";
  if (n.to === "unreachable" && n.pastGrace) return "unreachable past its grace";
  return n.to;
}

/** What every format says about one notice, in the shape the sweep's chat formats take. */
export function noticeReport(notice: VerificationNotice): SweepReport {
  const who =
    notice.certificateName === undefined
      ? notice.domain
      : `${notice.certificateName} (${notice.domain})`;
  const title =
    notice.kind === "bad"
      ? `certsched: ${oneLine(who, 120)} is ${statusText(notice)}`
      : `certsched: ${oneLine(who, 120)} is ok again`;
  const r = notice.result;
  const facts = [
    { label: "Status", value: statusText(notice) },
    { label: "Was", value: notice.from ?? "not verified before" },
    ...(r?.daysLeft === undefined ? [] : [{ label: "Days left (as served)", value: r.daysLeft }]),
    ...(r?.servedNotAfter === undefined
      ? []
      : [{ label: "Served until", value: r.servedNotAfter }]),
    ...(r ? [{ label: "Checked", value: r.source === "tls" ? "TLS endpoint" : "Key Vault" }] : []),
  ];
  const lines = r ? [oneLine(r.detail)] : [];
  const text = [title, facts.map((f) => `${f.label}: ${f.value}`).join(", "), ...lines].join("\n");
  return {
    failed: notice.kind === "bad",
    title,
    counts: facts,
    attention: [],
    attentionLines: lines,
    omitted: 0,
    problems: [],
    text,
  };
}

/** The generic JSON message of one notice, for a receiver of your own. */
function jsonNotice(notice: VerificationNotice, report: SweepReport): unknown {
  const r = notice.result;
  return {
    source: "certsched",
    event: "verification",
    status: notice.kind === "bad" ? "failed" : "recovered",
    title: report.title,
    ...(notice.certificateName === undefined ? {} : { certificateName: notice.certificateName }),
    domain: notice.domain,
    ...(notice.from === undefined ? {} : { from: notice.from }),
    to: notice.to,
    critical: notice.critical,
    pastGrace: notice.pastGrace,
    ...(r
      ? {
          checked: r.source,
          ...(r.servedNotAfter === undefined ? {} : { servedNotAfter: r.servedNotAfter }),
          ...(r.daysLeft === undefined ? {} : { daysLeft: r.daysLeft }),
          ...(r.issuer === undefined ? {} : { issuer: oneLine(r.issuer) }),
          ...(r.thumbprint === undefined ? {} : { thumbprint: r.thumbprint }),
          detail: oneLine(r.detail),
        }
      : {}),
    text: report.text,
  };
}

/** The request body of one notice in a format; redacted as a whole, as the sweep's are. */
export function verificationBody(notice: VerificationNotice, format: WebhookFormat): string {
  const report = noticeReport(notice);
  const message =
    format === "teams"
      ? teamsMessage(report)
      : format === "slack"
        ? slackMessage(report)
        : jsonNotice(notice, report);
  return redact(JSON.stringify(message));
}
