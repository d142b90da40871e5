import type { VerificationNotice } from "../../core/ports/notifier.js";
import { redact } from "../../lib/redact/redact.js";
import { slackMessage } from "./slackMessage.js";
import { accountOf, oneLine, type SweepReport, shownAccount } from "./sweepReport.js";
import { teamsMessage } from "./teamsMessage.js";
import type { WebhookFormat } from "./webhookFormat.js";

/**
 * Webhook messages of a verification run, one per notice
 * (core/verification/notices.ts says which certificates get one).
 */

function statusText(n: Pick<VerificationNotice, "to" | "critical" | "pastGrace">): string {
  if (n.to === "expiring" && n.critical) return "critically expiring";
  if (n.to === "unreachable" && n.pastGrace) return "unreachable past its grace";
  return n.to;
}

/**
 * What every format says about one notice, in the shape the sweep's chat formats take. `named`:
 * accounts are declared, so the title and the facts name the notice's account.
 */
export function noticeReport(notice: VerificationNotice, named = false): SweepReport {
  const account = shownAccount(notice.account, named);
  const name =
    notice.certificateName === undefined
      ? notice.domain
      : `${notice.certificateName} (${notice.domain})`;
  const who = account === undefined ? name : `${name} of account ${account}`;
  const title =
    notice.kind === "bad"
      ? `certsched: ${oneLine(who, 120)} is ${statusText(notice)}`
      : `certsched: ${oneLine(who, 120)} is ok again`;
  const r = notice.result;
  const facts = [
    ...(account === undefined ? [] : [{ label: "Account", value: account }]),
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
    account: accountOf(notice.account),
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
export function verificationBody(
  notice: VerificationNotice,
  format: WebhookFormat,
  named = false,
): string {
  const report = noticeReport(notice, named);
  const message =
    format === "teams"
      ? teamsMessage(report)
      : format === "slack"
        ? slackMessage(report)
        : jsonNotice(notice, report);
  return redact(JSON.stringify(message));
}
