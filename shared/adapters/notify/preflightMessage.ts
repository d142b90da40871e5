import type { PreflightChange } from "../../core/preflight/changes.js";
import { redact } from "../../lib/redact/redact.js";
import { slackMessage } from "./slackMessage.js";
import { accountOf, oneLine, type SweepReport, shownAccount } from "./sweepReport.js";
import { teamsMessage } from "./teamsMessage.js";
import type { WebhookFormat } from "./webhookFormat.js";

/**
 * Webhook messages of a preflight run, one per change (core/preflight/changes.ts): a
 * certificate that now will fail to renew, naming each failed check, its reason, what was found
 * and what a person does about it; or one that is ready again. The names, the domain and the
 * details come from the service, DNS and ARM: every format escapes them as its own messages do.
 */

/** A check's detail in a message: the contract bounds it at 299 characters already. */
const MAX_DETAIL = 300;

function whoOf(change: PreflightChange, account: string | undefined): string {
  const name =
    change.rootDomain === null
      ? change.certificateName
      : `${change.certificateName} (${change.rootDomain})`;
  return account === undefined ? name : `${name} of account ${account}`;
}

function daysText(days: number): string {
  if (days === 1) return "1 day";
  if (days < 0) return `expired ${-days} day(s) ago`;
  return `${days} days`;
}

/** One line per failed check: what failed, why, and what to do. */
function failureLines(change: PreflightChange): string[] {
  return change.failures.map(
    (f) => `${f.check}: ${f.reason}: ${oneLine(f.detail, MAX_DETAIL)}. What to do: ${f.advice}`,
  );
}

/**
 * What every format says about one change, in the shape the sweep's chat formats take. `named`:
 * accounts are declared, so the title and the facts name the change's account.
 */
export function preflightReport(change: PreflightChange, named = false): SweepReport {
  const account = shownAccount(change.account, named);
  const who = oneLine(whoOf(change, account), 160);
  const failing = change.kind === "will-fail";
  const title = failing
    ? `certsched: ${who} will fail to renew`
    : `certsched: ${who} is ready to renew again`;
  const facts = [
    ...(account === undefined ? [] : [{ label: "Account", value: account }]),
    { label: "Certificate", value: oneLine(change.certificateName, 120) },
    ...(change.rootDomain === null
      ? []
      : [{ label: "Domain", value: oneLine(change.rootDomain, 120) }]),
    { label: "Preflight", value: failing ? "will fail" : "ready" },
    { label: "Was", value: change.from ?? "not checked before" },
    ...(change.daysLeft === undefined
      ? []
      : [{ label: "Expires in", value: daysText(change.daysLeft) }]),
  ];
  const lines = failing
    ? failureLines(change)
    : ["Every check passed: the renewal can be requested when it is due."];
  const text = [title, facts.map((f) => `${f.label}: ${f.value}`).join(", "), ...lines].join("\n");
  return {
    failed: failing,
    title,
    counts: facts,
    attention: [],
    attentionLines: lines,
    omitted: 0,
    problems: [],
    text,
  };
}

/** The generic JSON message of one change, for a receiver of your own. */
function jsonChange(change: PreflightChange, report: SweepReport): unknown {
  return {
    source: "certsched",
    event: "preflight",
    account: accountOf(change.account),
    status: change.kind,
    title: report.title,
    certificateName: change.certificateName,
    domain: change.rootDomain,
    ...(change.from === undefined ? {} : { from: change.from }),
    ...(change.daysLeft === undefined ? {} : { daysLeft: change.daysLeft }),
    failures: change.failures.map((f) => ({
      check: f.check,
      reason: f.reason,
      detail: oneLine(f.detail, MAX_DETAIL),
      advice: f.advice,
    })),
    text: report.text,
  };
}

/** The request body of one change in a format; redacted as a whole, as the sweep's are. */
export function preflightBody(
  change: PreflightChange,
  format: WebhookFormat,
  named = false,
): string {
  const report = preflightReport(change, named);
  const message =
    format === "teams"
      ? teamsMessage(report)
      : format === "slack"
        ? slackMessage(report)
        : jsonChange(change, report);
  return redact(JSON.stringify(message));
}
