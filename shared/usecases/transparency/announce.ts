import type { CertificateEvent, Trigger } from "../../core/history/events.js";
import type { History } from "../../core/ports/history.js";
import type { Notifier } from "../../core/ports/notifier.js";
import type { TransparencyStore } from "../../core/ports/transparency.js";
import type { SeenIssuance } from "../../core/transparency/issuance.js";
import { issuanceLine, needsAttention } from "../../core/transparency/issuanceView.js";
import { ensureError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { redact } from "../../lib/redact/redact.js";
import { boundDetail } from "../../lib/text/boundDetail.js";

/**
 * What an unexpected issuance sets off: when it becomes unexpected, one history event and one
 * alert line (the alert rule reads the line); then one webhook message, claimed in the store so
 * that exactly one process sends it, and tried again by a later run when the webhook failed.
 */

/** The alert rule's line (infra/alerts/unexpected-issuance.kql parses it). */
export const ALERT_PREFIX = "certsched ct alert: unexpected ";

export interface AnnouncePorts {
  readonly account: string;
  readonly now: () => Date;
  readonly history: Pick<History, "append">;
  readonly transparency: TransparencyStore;
  readonly notifier: Pick<Notifier, "notifyIssuances">;
}

/** One event and one alert line for each issuance that became unexpected in this run. */
export async function recordUnexpected(
  ports: AnnouncePorts,
  became: readonly SeenIssuance[],
  run: { readonly runId: string; readonly trigger: Trigger },
  log: Logger,
): Promise<string[]> {
  if (became.length === 0) return [];
  const at = ports.now();
  const events: CertificateEvent[] = became.map((seen) => ({
    at,
    certificateName: `ct:${seen.watched}`,
    event: "unexpected-issuance",
    trigger: run.trigger,
    runId: run.runId,
    reason: "UnexpectedIssuance",
    detail: boundDetail(issuanceLine(seen)),
  }));
  for (const seen of became) log.warn(`${ALERT_PREFIX}${issuanceLine(seen)}`);
  try {
    await ports.history.append(events);
    return [];
  } catch (error) {
    return [
      `the history could not record ${became.length} unexpected issuances: ${redact(ensureError(error).message)}`,
    ];
  }
}

/**
 * Sends the one message of each unexpected issuance not yet announced nor acknowledged. With no
 * webhook configured it counts as announced: configuring one later does not replay the past.
 */
export async function sendMessages(
  ports: AnnouncePorts,
  stored: readonly SeenIssuance[],
  log: Logger,
): Promise<{ readonly sent: number; readonly problems: string[] }> {
  let sent = 0;
  const problems: string[] = [];
  for (const seen of stored) {
    if (!needsAttention(seen) || seen.notifiedAt) continue;
    const id = seen.issuance.id;
    if (!(await ports.transparency.claimNotice(ports.account, id, ports.now()))) continue;
    const outcome = await ports.notifier.notifyIssuances([seen], log);
    if (outcome === "failed") {
      await ports.transparency.releaseNotice(ports.account, id);
      problems.push(`the webhook message about issuance ${id} failed: a later run sends it`);
      continue;
    }
    await ports.transparency.markNotified(ports.account, id, ports.now());
    if (outcome === "sent") sent++;
  }
  return { sent, problems };
}
