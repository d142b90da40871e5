import type { SeenIssuance } from "../../core/transparency/issuance.js";
import {
  issuanceExpired,
  issuanceLink,
  issuanceNames,
  issuanceState,
  issuanceView,
  verdictText,
} from "../../core/transparency/issuanceView.js";
import { instantText } from "../../core/verification/served.js";
import { redact } from "../../lib/redact/redact.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { slackMessage } from "./slackMessage.js";
import { accountOf, oneLine, type SweepReport, shownAccount } from "./sweepReport.js";
import { teamsMessage } from "./teamsMessage.js";
import type { WebhookFormat } from "./webhookFormat.js";

/**
 * Webhook messages of a Certificate Transparency watch, one per issuance it found unexpected:
 * the names, the issuer, the validity, revoked or expired, why certsched does not know it, and the
 * crt.sh link. Names and issuer come from a log a CA wrote to: the watcher's adapter escaped them,
 * and every text here is made one line with its control and bidi characters visible again (what
 * is stored may be older than that rule); each format then escapes its own syntax (Teams' links,
 * Slack's mrkdwn), as the sweep's messages do.
 */

/** A name or an issuer in a title or a fact: enough to tell it, short enough for a chat title. */
const MAX_NAME = 160;
/** The names listed in a message's text; the rest are counted (JSON lists every name kept). */
const MAX_LISTED_NAMES = 20;

/** Text from the log, as one visible line. */
const plain = (text: string, max?: number) => oneLine(escapeControl(text), max);

const when = (d: Date | undefined) => (d ? instantText(d) : "unknown");

/** "unexpected", "unexpected, revoked, expired", "acknowledged": what a reader decides on. */
function stateText(seen: SeenIssuance, now: Date): string {
  return [
    issuanceState(seen),
    ...(seen.issuance.revoked ? ["revoked"] : []),
    ...(issuanceExpired(seen, now) ? ["expired"] : []),
  ].join(", ");
}

/** Every name kept, up to MAX_LISTED_NAMES, then how many more (kept or not). */
function namesLine(seen: SeenIssuance): string {
  const { dnsNames, moreNames } = seen.issuance;
  const listed = dnsNames.slice(0, MAX_LISTED_NAMES).map((n) => plain(n, MAX_NAME));
  const more = dnsNames.length - listed.length + moreNames;
  return `Names: ${listed.length > 0 ? listed.join(", ") : "(none)"}${more > 0 ? ` and ${more} more` : ""}`;
}

/**
 * What every format says about one issuance, in the shape the sweep's chat formats take.
 * `named`: accounts are declared, so the title and the facts name the issuance's account.
 */
export function issuanceReport(seen: SeenIssuance, now: Date, named = false): SweepReport {
  const account = shownAccount(seen.account, named);
  const i = seen.issuance;
  const names = plain(issuanceNames(seen), MAX_NAME);
  const state = issuanceState(seen);
  const what = state === "unexpected" ? "unexpected certificate" : `certificate (${state})`;
  const of = account === undefined ? "" : ` of account ${plain(account, 120)}`;
  const title = `certsched: ${what} for ${names}${of}`;
  const link = issuanceLink(seen);
  const facts = [
    ...(account === undefined ? [] : [{ label: "Account", value: plain(account, 120) }]),
    { label: "State", value: stateText(seen, now) },
    { label: "Watched name", value: plain(seen.watched, MAX_NAME) },
    { label: "Issuer", value: i.issuer === undefined ? "unknown" : plain(i.issuer, MAX_NAME) },
    { label: "Valid", value: `${when(i.notBefore)} to ${when(i.notAfter)}` },
    ...(i.revoked && i.revokedAt ? [{ label: "Revoked at", value: instantText(i.revokedAt) }] : []),
    { label: "First seen", value: instantText(seen.firstSeenAt) },
    { label: "Issuance", value: plain(i.id, 60) },
  ];
  const lines = [
    `Why: ${plain(verdictText(seen.verdict), 400)}`,
    namesLine(seen),
    ...(link === undefined ? [] : [`Certificate: ${link}`]),
    ...i.problems.slice(0, 5).map((p) => `Not read: ${plain(p)}`),
  ];
  const text = [title, facts.map((f) => `${f.label}: ${f.value}`).join(", "), ...lines].join("\n");
  return {
    failed: state === "unexpected",
    title,
    counts: facts,
    attention: [],
    attentionLines: lines,
    omitted: 0,
    problems: [],
    text,
  };
}

/** The generic JSON message of one issuance, for a receiver of your own: the view, every name. */
function jsonIssuance(seen: SeenIssuance, report: SweepReport, now: Date): unknown {
  const view = issuanceView(seen, now);
  return {
    source: "certsched",
    event: "issuance",
    ...view,
    account: accountOf(seen.account),
    names: view.names.map((n) => escapeControl(n)),
    watched: escapeControl(view.watched),
    ...(view.issuer === undefined ? {} : { issuer: escapeControl(view.issuer) }),
    why: escapeControl(view.why),
    title: report.title,
    text: report.text,
  };
}

/** The request body of one issuance in a format; redacted as a whole, as the sweep's are. */
export function issuanceBody(
  seen: SeenIssuance,
  format: WebhookFormat,
  now: Date,
  named = false,
): string {
  const report = issuanceReport(seen, now, named);
  const message =
    format === "teams"
      ? teamsMessage(report)
      : format === "slack"
        ? slackMessage(report)
        : jsonIssuance(seen, report, now);
  return redact(JSON.stringify(message));
}
