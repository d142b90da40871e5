import type { VaultAlert } from "../../core/vaultEvents/vaultAlert.js";
import { instantText } from "../../core/verification/served.js";
import { redact } from "../../lib/redact/redact.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { slackMessage } from "./slackMessage.js";
import { accountOf, oneLine, type SweepReport, shownAccount } from "./sweepReport.js";
import { teamsMessage } from "./teamsMessage.js";
import type { WebhookFormat } from "./webhookFormat.js";

/**
 * Webhook messages of Key Vault events, one per alert: a vault certificate that expires with
 * nothing to fix it in time (`at-risk`), or one no account of certsched renews (`unmanaged`),
 * with where it lives (vault, subscription, resource group) and why. The names come from the
 * event (validated, but shown as text from outside): each text is made one visible line, and
 * each format then escapes its own syntax, as the sweep's messages do.
 */

/** A name in a title or a fact. */
const MAX_NAME = 160;
/** The verdict's detail (bounded at 500 where it was made). */
const MAX_WHY = 500;

const plain = (text: string, max = MAX_NAME) => oneLine(escapeControl(text), max);

const EVENT_WORDS: Readonly<Record<VaultAlert["event"], string>> = {
  "new-version": "new version",
  "near-expiry": "near expiry",
  expired: "expired",
};

/**
 * What every format says about one alert, in the shape the sweep's chat formats take. `named`:
 * accounts are declared, so the title and the facts name the alert's account.
 */
export function vaultAlertReport(alert: VaultAlert, named = false): SweepReport {
  const account = shownAccount(alert.account, named);
  const where = plain(`${alert.vaultName}/${alert.certificateName}`);
  const of = account === undefined ? "" : ` of account ${plain(account, 120)}`;
  const title =
    alert.kind === "unmanaged"
      ? `certsched: unmanaged certificate expiring: ${where}${of}`
      : `certsched: ${where}${of} expires with nothing to renew it in time`;
  const facts = [
    ...(account === undefined ? [] : [{ label: "Account", value: plain(account, 120) }]),
    { label: "Alert", value: alert.kind },
    { label: "Event", value: EVENT_WORDS[alert.event] },
    { label: "Vault", value: plain(alert.vaultName) },
    { label: "Certificate", value: plain(alert.certificateName) },
    { label: "Version", value: plain(alert.version, 80) },
    { label: "Expires", value: instantText(alert.expiresAt) },
    { label: "Subscription", value: plain(alert.subscriptionId, 80) },
    { label: "Resource group", value: plain(alert.resourceGroup, 120) },
    ...(alert.managedName === undefined
      ? []
      : [{ label: "Certsched's name", value: plain(alert.managedName) }]),
  ];
  const lines = [`Why: ${plain(alert.detail, MAX_WHY)}`];
  const text = [title, facts.map((f) => `${f.label}: ${f.value}`).join(", "), ...lines].join("\n");
  return {
    failed: true,
    title,
    counts: facts,
    attention: [],
    attentionLines: lines,
    omitted: 0,
    problems: [],
    text,
  };
}

/** The generic JSON message of one alert, for a receiver of your own. */
function jsonAlert(alert: VaultAlert, report: SweepReport): unknown {
  return {
    source: "certsched",
    event: "vault-alert",
    account: escapeControl(accountOf(alert.account)),
    kind: alert.kind,
    vaultEvent: alert.event,
    vaultName: escapeControl(alert.vaultName),
    certificateName: escapeControl(alert.certificateName),
    version: escapeControl(alert.version),
    subscriptionId: escapeControl(alert.subscriptionId),
    resourceGroup: escapeControl(alert.resourceGroup),
    expiresAt: alert.expiresAt.toISOString(),
    ...(alert.managedName === undefined ? {} : { managedName: escapeControl(alert.managedName) }),
    detail: escapeControl(alert.detail),
    title: report.title,
    text: report.text,
  };
}

/** The request body of one alert in a format; redacted as a whole, as the sweep's are. */
export function vaultAlertBody(alert: VaultAlert, format: WebhookFormat, named = false): string {
  const report = vaultAlertReport(alert, named);
  const message =
    format === "teams"
      ? teamsMessage(report)
      : format === "slack"
        ? slackMessage(report)
        : jsonAlert(alert, report);
  return redact(JSON.stringify(message));
}
