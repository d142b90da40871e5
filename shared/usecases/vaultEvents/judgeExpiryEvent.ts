import type { LedgerRecord } from "../../core/ports/ledger.js";
import { type ExpiryVerdict, judgeExpiry } from "../../core/vaultEvents/expiryVerdict.js";
import { alertLine } from "../../core/vaultEvents/lines.js";
import type { VaultAlert } from "../../core/vaultEvents/vaultAlert.js";
import type { VaultEvent } from "../../core/vaultEvents/vaultEvent.js";
import type { WatchedCertificate } from "../../core/vaultEvents/watchedVaults.js";
import type { VaultVersion } from "../../core/verification/syncCheck.js";
import { ensureError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { redact } from "../../lib/redact/redact.js";
import { boundDetail } from "../../lib/text/boundDetail.js";
import { type EventAccountPorts, historyName, record, vaultEventOf } from "./checkConsumers.js";

/**
 * A near-expiry or expired event, confirmed by the vault: weighed against what certsched knows
 * of the certificate (its ledger record, its last preflight), and an alert (the error line,
 * the webhook) when nothing will fix it in time.
 */

/** The ledger's record of a certificate certsched renews; undefined when it has none or cannot read it. */
async function ledgerRecordOf(
  ports: Pick<EventAccountPorts, "ledger">,
  certificate: WatchedCertificate | undefined,
  log: Logger,
): Promise<LedgerRecord | undefined> {
  const id = certificate?.managed?.id;
  if (id === undefined) return undefined;
  try {
    return (await ports.ledger.read(id))?.record;
  } catch (error) {
    log.warn(
      `certsched could not read the ledger record of certificate ${id} for a vault event; judged without it: ${redact(ensureError(error).message)}`,
    );
    return undefined;
  }
}

export interface ExpiryEvent {
  readonly account: string;
  readonly event: VaultEvent;
  readonly version: VaultVersion;
  readonly current: VaultVersion;
  readonly certificate?: WatchedCertificate | undefined;
  readonly runId: string;
}

/** The verdict, recorded in the history; an alert when the certificate is at risk or unmanaged. */
export async function judgeExpiryEvent(
  ports: EventAccountPorts,
  log: Logger,
  input: ExpiryEvent,
): Promise<ExpiryVerdict> {
  const { event, certificate } = input;
  const ledger = await ledgerRecordOf(ports, certificate, log);
  const now = ports.now();
  const verdict = judgeExpiry({
    event,
    version: input.version,
    current: input.current,
    certificate,
    ledger,
    now,
    verifyWindowMs: ports.settings.verify().windowMs,
  });
  const managedName = certificate?.managed?.certificateName;
  const name = historyName(managedName, event.vaultName, event.certificateName);
  const id = certificate?.managed?.id;
  const outcome = `${verdict.kind}: ${verdict.detail}`;
  const events = [vaultEventOf(now, name, id, event.kind, outcome, input.runId)];
  const alerting = verdict.kind === "at-risk" || verdict.kind === "unmanaged";
  if (alerting) {
    events.push({
      ...vaultEventOf(now, name, id, event.kind, outcome, input.runId),
      event: "vault-expiry-alert",
    });
  }
  await record(ports, log, events);
  if (alerting) await alert(ports, log, input, verdict, managedName);
  return verdict;
}

/** The alert line (error level: the alert rule matches it) and the webhook message. */
async function alert(
  ports: Pick<EventAccountPorts, "notifier" | "settings">,
  log: Logger,
  input: ExpiryEvent,
  verdict: ExpiryVerdict,
  managedName: string | undefined,
): Promise<void> {
  const { event } = input;
  log.error(alertLine(input.account, event, verdict.detail));
  const message: VaultAlert = {
    ...(ports.settings.accountsDeclared ? { account: input.account } : {}),
    kind: verdict.kind === "unmanaged" ? "unmanaged" : "at-risk",
    event: event.kind,
    vaultName: event.vaultName,
    certificateName: event.certificateName,
    version: event.version,
    subscriptionId: event.subscriptionId,
    resourceGroup: event.resourceGroup,
    expiresAt: input.version.notAfter,
    detail: boundDetail(verdict.detail),
    ...(managedName === undefined ? {} : { managedName }),
  };
  try {
    await ports.notifier.notifyVaultAlerts([message], log);
  } catch (error) {
    log.warn(
      `certsched webhook notification of a vault alert failed: ${redact(ensureError(error).message)}`,
    );
  }
}
