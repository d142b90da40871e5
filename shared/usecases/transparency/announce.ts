import type { Trigger } from "../../core/history/events.js";
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
 * What an unexpected issuance sets off, exactly once across processes and restarts: the process
 * that claims its message in the store writes one history event and one alert line (the alert
 * rule reads the line) and marks them written in its verdict, then posts one webhook message.
 * A webhook that fails gives the claim back: a later run posts it, without a second event.
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

export interface Announced {
  /** The issuances whose event and alert line this run wrote. */
  readonly recorded: readonly SeenIssuance[];
  readonly sent: number;
  readonly problems: readonly string[];
}

/**
 * Announces each unexpected issuance not yet announced nor acknowledged. With no webhook
 * configured it counts as announced: configuring one later does not replay the past.
 */
export async function announceUnexpected(
  ports: AnnouncePorts,
  stored: readonly SeenIssuance[],
  run: { readonly runId: string; readonly trigger: Trigger },
  log: Logger,
): Promise<Announced> {
  const recorded: SeenIssuance[] = [];
  const problems: string[] = [];
  let sent = 0;
  for (const seen of stored) {
    if (!needsAttention(seen) || seen.notifiedAt) continue;
    const id = seen.issuance.id;
    if (!(await ports.transparency.claimNotice(ports.account, id, ports.now()))) continue;
    if (seen.verdict.kind === "unexpected" && !seen.verdict.recorded) {
      const problem = await record(ports, seen, run, log);
      if (problem) problems.push(problem);
      await ports.transparency.setVerdict(ports.account, id, { ...seen.verdict, recorded: true });
      recorded.push(seen);
    }
    const outcome = await ports.notifier.notifyIssuances([seen], log);
    if (outcome === "failed") {
      await ports.transparency.releaseNotice(ports.account, id);
      problems.push(`the webhook message about issuance ${id} failed: a later run sends it`);
      continue;
    }
    await ports.transparency.markNotified(ports.account, id, ports.now());
    if (outcome === "sent") sent++;
  }
  return { recorded, sent, problems };
}

/** The event and the alert line; a history that cannot be written is a problem, not a stop. */
async function record(
  ports: AnnouncePorts,
  seen: SeenIssuance,
  run: { readonly runId: string; readonly trigger: Trigger },
  log: Logger,
): Promise<string | undefined> {
  log.warn(`${ALERT_PREFIX}${issuanceLine(seen)}`);
  try {
    await ports.history.append([
      {
        at: ports.now(),
        certificateName: `ct:${seen.watched}`,
        event: "unexpected-issuance",
        trigger: run.trigger,
        runId: run.runId,
        reason: "UnexpectedIssuance",
        detail: boundDetail(issuanceLine(seen)),
      },
    ]);
    return undefined;
  } catch (error) {
    return `the history could not record issuance ${seen.issuance.id}: ${redact(ensureError(error).message)}`;
  }
}
