import type { EstateAlert } from "../../core/estate/estateAlert.js";
import { estateAlertLine } from "../../core/estate/lines.js";
import { instantText } from "../../core/verification/served.js";
import { redact } from "../../lib/redact/redact.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { slackMessage } from "./slackMessage.js";
import { accountOf, oneLine, type SweepReport, shownAccount } from "./sweepReport.js";
import { teamsMessage } from "./teamsMessage.js";
import type { WebhookFormat } from "./webhookFormat.js";

/**
 * The webhook message of estate discovery: the certificates certsched does not keep that
 * entered the unmanaged-and-expiring set in one run, one line each (core/estate/lines.ts:
 * escaped, bounded), in one message per account and run.
 */

/** Lines in one message; the rest are counted (GET /api/estate and the CLI have them all). */
export const MAX_ESTATE_LINES = 20;

export function estateReport(alert: EstateAlert, named = false): SweepReport {
  const account = shownAccount(alert.account, named);
  const n = alert.entries.length;
  const of = account === undefined ? "" : ` of account ${oneLine(escapeControl(account), 120)}`;
  const title = `certsched: ${n} unmanaged certificate${n === 1 ? "" : "s"} expiring within ${alert.expiringDays} days${of}`;
  const shown = alert.entries.slice(0, MAX_ESTATE_LINES);
  const lines = shown.map((entry) =>
    estateAlertLine(accountOf(alert.account), entry, alert.at).replace(
      /^certsched estate alert: /,
      "",
    ),
  );
  const more = n - shown.length;
  const facts = [
    ...(account === undefined
      ? []
      : [{ label: "Account", value: oneLine(escapeControl(account), 120) }]),
    { label: "Entering the set", value: String(n) },
    { label: "Within", value: `${alert.expiringDays} days` },
    { label: "Found", value: instantText(alert.at) },
  ];
  const attentionLines = [...lines, ...(more > 0 ? [`and ${more} more (certsched estate)`] : [])];
  return {
    failed: true,
    title,
    counts: facts,
    attention: [],
    attentionLines,
    omitted: 0,
    problems: [],
    text: [title, ...attentionLines].join("\n"),
  };
}

function jsonEstate(alert: EstateAlert, report: SweepReport): unknown {
  return {
    source: "certsched",
    event: "estate-alert",
    account: escapeControl(accountOf(alert.account)),
    expiringDays: alert.expiringDays,
    at: alert.at.toISOString(),
    certificates: alert.entries.slice(0, MAX_ESTATE_LINES).map(({ certificate: c }) => ({
      id: escapeControl(c.id),
      name: escapeControl(c.name),
      kind: c.kind,
      subscriptionId: escapeControl(c.subscriptionId),
      expiresAt: c.expiresAt?.toISOString(),
      boundTo: c.boundTo.slice(0, 10).map((b) => escapeControl(b.hostName ?? b.resourceId)),
    })),
    more: Math.max(0, alert.entries.length - MAX_ESTATE_LINES),
    title: report.title,
    text: report.text,
  };
}

/** The request body in a format; redacted as a whole, as the sweep's are. */
export function estateBody(alert: EstateAlert, format: WebhookFormat, named = false): string {
  const report = estateReport(alert, named);
  const message =
    format === "teams"
      ? teamsMessage(report)
      : format === "slack"
        ? slackMessage(report)
        : jsonEstate(alert, report);
  return redact(JSON.stringify(message));
}
