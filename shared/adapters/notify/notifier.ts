import type { Notifier, NotifyOutcome } from "../../core/ports/notifier.js";
import type { SweepSummary } from "../../core/renewal/summary.js";
import type { Settings } from "../../core/settings.js";
import { ensureError } from "../../lib/errors.js";
import { HttpClient, type HttpClientOptions } from "../../lib/http/httpClient.js";
import { responseDetail } from "../../lib/http/responseDetail.js";
import type { RetryPolicy } from "../../lib/http/retryPolicy.js";
import type { Logger } from "../../lib/log.js";
import { redact } from "../../lib/redact/redact.js";
import { estateBody } from "./estateMessage.js";
import { issuanceBody } from "./issuanceMessage.js";
import { jsonMessage } from "./jsonMessage.js";
import { preflightBody } from "./preflightMessage.js";
import { slackMessage } from "./slackMessage.js";
import { renewedOutside, sweepReport } from "./sweepReport.js";
import { teamsMessage } from "./teamsMessage.js";
import { vaultAlertBody } from "./vaultAlertMessage.js";
import { verificationBody } from "./verificationMessage.js";
import { resolveWebhookFormat, type WebhookFormat } from "./webhookFormat.js";

/** A webhook that has not answered by then is given up on: the sweep must not wait (10 s). */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * Only "not now" answers are tried again (once): nothing was posted then. A 5xx or a timeout may
 * have posted the message already, and a duplicate in a channel is worse than a log line.
 */
export const WEBHOOK_POLICY: RetryPolicy = {
  statuses: [429, 503],
  networkErrors: false,
  maxRetries: 1,
  baseDelayMs: 1_000,
  maxDelayMs: 1_000,
  maxRetryAfterMs: 5_000,
};

/**
 * Messages one verification run posts at most (one per changed certificate): a mass change (a CA
 * distrusted, a network down) must not flood a channel for minutes.
 */
export const MAX_VERIFICATION_MESSAGES = 25;

/**
 * Messages one preflight run posts at most (one per changed certificate): a zone deleted under
 * many certificates, or credentials refused for every one, must not flood a channel either.
 */
export const MAX_PREFLIGHT_MESSAGES = 25;

export interface NotifierOptions {
  /** CERTSCHED_WEBHOOK_URL; a secret (its query or path is the signature): never logged. */
  readonly url: string;
  readonly format: Settings["webhookFormat"];
  /** CERTSCHED_NOTIFY_SUCCESS: also post after sweeps that went well. */
  readonly notifySuccess: boolean;
  /** Per attempt, in ms (default WEBHOOK_TIMEOUT_MS). */
  readonly timeoutMs?: number;
  /**
   * Accounts are declared: chat messages name the account in the title and facts.
   * Without, they read as before; the JSON format has `account` either way.
   */
  readonly namedAccounts?: boolean;
  /** Observer of the webhook call (telemetry), reported as upstream "webhook". */
  readonly onCall?: HttpClientOptions["onCall"];
  /** The clock an issuance's message says "expired" by (default: the system's). */
  readonly now?: () => Date;
}

/**
 * Failed sweeps always; good ones only when asked, so silence can mean "fine" or "off"; and a
 * sweep that renewed a certificate outside its renewal windows (the calendar's guarantee acted:
 * people chose those windows and hear when one was passed by).
 */
export function shouldNotify(summary: SweepSummary, notifySuccess: boolean): boolean {
  return summary.failed || notifySuccess || summary.results.some(renewedOutside);
}

/** The request body for a format; every line went through redact(), the whole does again. */
export function webhookBody(summary: SweepSummary, format: WebhookFormat, named = false): string {
  const report = sweepReport(summary, named);
  const message =
    format === "teams"
      ? teamsMessage(report)
      : format === "slack"
        ? slackMessage(report)
        : jsonMessage(summary, report);
  return redact(JSON.stringify(message));
}

/** One POST of a message; `work` names what it is about ("the sweep", "the verification"). */
type Post = (body: string, work: string, log: Logger) => Promise<NotifyOutcome>;

/** The webhook's one POST, on its own HttpClient (made on the first message). */
function webhookPost(
  options: NotifierOptions,
  format: WebhookFormat,
): { post: Post; close(): Promise<void> } {
  let http: HttpClient | undefined;
  const post: Post = async (body, work, log) => {
    try {
      http ??= new HttpClient({
        timeoutMs: options.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
        ...(options.onCall ? { onCall: options.onCall } : {}),
      });
      const res = await http.send({
        upstream: "webhook",
        url: options.url,
        headers: { "content-type": "application/json; charset=utf-8" },
        body,
        policy: WEBHOOK_POLICY,
      });
      if (res.status < 200 || res.status > 299) {
        const detail = responseDetail(res.text, res.contentType);
        log.warn(
          `certsched webhook notification failed (${format}), ${work} is unaffected: the webhook answered ${res.status}${detail ? `: ${detail}` : ""}`,
        );
        return "failed";
      }
      log.info(`certsched webhook notified (${format}, ${res.status})`);
      return "sent";
    } catch (error) {
      // The URL is never part of the message: its query or path is the webhook's signature.
      log.warn(
        `certsched webhook notification failed (${format}), ${work} is unaffected: ${redact(ensureError(error).message)}`,
      );
      return "failed";
    }
  };
  return { post, close: async () => http?.close() };
}

/**
 * Posts each message one at a time (a channel shows them in order, and a 429 is not made
 * worse); "sent" only when every one was, "not-needed" when there is none.
 */
async function postEach(
  bodies: readonly (() => string)[],
  work: string,
  log: Logger,
  post: Post,
): Promise<NotifyOutcome> {
  if (bodies.length === 0) return "not-needed";
  let outcome: NotifyOutcome = "sent";
  for (const body of bodies) {
    if ((await post(body(), work, log)) === "failed") outcome = "failed";
  }
  return outcome;
}

/** Posts sweep messages to the webhook; its own HttpClient, so its short timeout stays its own. */
export function createNotifier(options: NotifierOptions): Notifier {
  const format = resolveWebhookFormat(options.format, options.url);
  const named = options.namedAccounts === true;
  const now = options.now ?? (() => new Date());
  const { post, close } = webhookPost(options, format);
  return {
    async notify(summary, log) {
      if (!shouldNotify(summary, options.notifySuccess)) return "not-needed";
      return post(webhookBody(summary, format, named), "the sweep", log);
    },
    async notifyVerification(notices, log) {
      if (notices.length > MAX_VERIFICATION_MESSAGES) {
        log.warn(
          `certsched webhook: ${notices.length} certificates changed status in one verification; posting the first ${MAX_VERIFICATION_MESSAGES} (the summary line and GET /api/verifications have them all)`,
        );
      }
      const bodies = notices
        .slice(0, MAX_VERIFICATION_MESSAGES)
        .map((notice) => () => verificationBody(notice, format, named));
      return postEach(bodies, "the verification", log, post);
    },
    async notifyPreflight(changes, log) {
      if (changes.length > MAX_PREFLIGHT_MESSAGES) {
        log.warn(
          `certsched webhook: ${changes.length} certificates changed preflight status in one run; posting the first ${MAX_PREFLIGHT_MESSAGES} (GET /api/preflight has them all)`,
        );
      }
      const bodies = changes
        .slice(0, MAX_PREFLIGHT_MESSAGES)
        .map((change) => () => preflightBody(change, format, named));
      return postEach(bodies, "the preflight", log, post);
    },
    async notifyIssuances(issuances, log) {
      // Every one: each unexpected issuance is told exactly once (the store keeps which were),
      // so none may be left out as a mass change's extra messages are.
      const bodies = issuances.map((seen) => () => issuanceBody(seen, format, now(), named));
      return postEach(bodies, "the Certificate Transparency watch", log, post);
    },
    async notifyVaultAlerts(alerts, log) {
      // Every one: each event's work is done once (the event store keeps which was), and each
      // alert was confirmed by reading the vault, so none is a forged event's.
      const bodies = alerts.map((alert) => () => vaultAlertBody(alert, format, named));
      return postEach(bodies, "the Key Vault event", log, post);
    },
    async notifyEstate(alert, log) {
      if (alert.entries.length === 0) return "not-needed";
      return post(estateBody(alert, format, named), "estate discovery", log);
    },
    close,
  };
}

/**
 * The notifier of one account: every sweep summary and verification notice it posts
 * carries the account (unless it already names one), so the message says whose it is. One
 * webhook serves every account: the messages tell them apart. `named` (accounts are declared):
 * its log lines (sent, failed) name the account too.
 */
export function accountNotifier(notifier: Notifier, account: string, named = false): Notifier {
  const logOf = (log: Logger): Logger =>
    named
      ? {
          info: (m) => log.info(`${m} (account ${account})`),
          warn: (m) => log.warn(`${m} (account ${account})`),
          error: (m) => log.error(`${m} (account ${account})`),
        }
      : log;
  return {
    notify: (summary, log) =>
      notifier.notify(
        summary.account === undefined ? { ...summary, account } : summary,
        logOf(log),
      ),
    notifyVerification: (notices, log) =>
      notifier.notifyVerification(
        notices.map((n) => (n.account === undefined ? { ...n, account } : n)),
        logOf(log),
      ),
    // A change names its account already (the preflight result's).
    notifyPreflight: (changes, log) => notifier.notifyPreflight(changes, logOf(log)),
    // An issuance names its account already (the store keeps it with the account).
    notifyIssuances: (issuances, log) => notifier.notifyIssuances(issuances, logOf(log)),
    notifyVaultAlerts: (alerts, log) =>
      notifier.notifyVaultAlerts(
        alerts.map((a) => (a.account === undefined ? { ...a, account } : a)),
        logOf(log),
      ),
    notifyEstate: (alert, log) =>
      notifier.notifyEstate(
        alert.account === undefined ? { ...alert, account } : alert,
        logOf(log),
      ),
    // The app's notifier is closed by the app, once.
    close: async () => {},
  };
}
