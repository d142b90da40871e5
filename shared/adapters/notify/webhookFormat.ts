import type { Settings } from "../../core/settings.js";

/** A concrete message format (CERTSCHED_WEBHOOK_FORMAT once "auto" is resolved). */
export type WebhookFormat = Exclude<Settings["webhookFormat"], "auto">;

const TEAMS_DOMAINS = ["logic.azure.com", "powerplatform.com", "webhook.office.com"];

function isUnder(hostname: string, domain: string): boolean {
  return hostname === domain || hostname.endsWith(`.${domain}`);
}

/**
 * The format to post: the setting when explicit, else guessed from the host. Teams workflows
 * (Power Automate) live on logic.azure.com or powerplatform.com, the older connectors on
 * webhook.office.com; Slack incoming webhooks on hooks.slack.com. Anything else gets JSON.
 */
export function resolveWebhookFormat(
  setting: Settings["webhookFormat"],
  webhookUrl: string,
): WebhookFormat {
  if (setting !== "auto") return setting;
  const hostname = new URL(webhookUrl).hostname.toLowerCase();
  if (isUnder(hostname, "hooks.slack.com")) return "slack";
  if (TEAMS_DOMAINS.some((domain) => isUnder(hostname, domain))) return "teams";
  return "json";
}

/** Shorter query values are versions and flags (`api-version=2016-06-01`, `sv=1.0`), not keys. */
const MIN_QUERY_SECRET = 16;

/**
 * The parts of a webhook URL that must be redacted wherever they appear: the whole URL, its
 * path and query (Slack's secret is the path, a Teams workflow's signature is the `sig`
 * parameter) and each long query value.
 */
export function webhookSecrets(webhookUrl: string | undefined): string[] {
  if (!webhookUrl) return [];
  const url = new URL(webhookUrl);
  const secrets = [webhookUrl, url.href, `${url.pathname}${url.search}`];
  if (url.pathname !== "/") secrets.push(url.pathname);
  for (const value of url.searchParams.values()) {
    if (value.length >= MIN_QUERY_SECRET) secrets.push(value);
  }
  return secrets;
}
