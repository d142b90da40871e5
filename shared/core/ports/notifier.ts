import type { Logger } from "../../lib/log.js";
import type { EstateAlert } from "../estate/estateAlert.js";
import type { PreflightChange } from "../preflight/changes.js";
import type { SweepSummary } from "../renewal/summary.js";
import type { SeenIssuance } from "../transparency/issuance.js";
import type { VaultAlert } from "../vaultEvents/vaultAlert.js";
import type { InventoryResult } from "../verification/inventoryResult.js";
import type { InventoryStatus } from "../verification/judge.js";

/** The webhook messages certsched sends; adapters/notify/ posts them. */
export type NoticeKind =
  /**
   * Now incomplete-chain, untrusted, mismatch, weak, too-long, expired, not-landed, not-synced, critically
   * expiring or unreachable past grace.
   */
  | "bad"
  /** Back to `ok` from one of those. */
  | "recovered";

export interface VerificationNotice {
  /** The account whose certificate it is; webhook messages name it. */
  readonly account?: string | undefined;
  readonly kind: NoticeKind;
  readonly certificateName?: string | undefined;
  readonly domain: string;
  /** The status before; undefined when never verified before. */
  readonly from?: InventoryStatus | undefined;
  readonly to: InventoryStatus;
  readonly critical: boolean;
  /** For `unreachable`: CERTSCHED_VERIFY_UNREACHABLE_AFTER has passed. */
  readonly pastGrace: boolean;
  /** This run's reading (served expiry, days left, issuer, why). */
  readonly result?: InventoryResult | undefined;
}

/** What happened to a sweep's notification. */
export type NotifyOutcome =
  /** No CERTSCHED_WEBHOOK_URL. */
  | "disabled"
  /** The sweep went well and CERTSCHED_NOTIFY_SUCCESS is off. */
  | "not-needed"
  | "sent"
  /** The webhook refused or could not be reached; logged, the sweep is unaffected. */
  | "failed";

export interface Notifier {
  /** Posts the sweep's message when the settings ask for one. Never throws. */
  notify(summary: SweepSummary, log: Logger): Promise<NotifyOutcome>;
  /**
   * Posts one message per notice of a verification run (verificationMessage.ts), one after the
   * other; "sent" only when every one was. Never throws.
   */
  notifyVerification(notices: readonly VerificationNotice[], log: Logger): Promise<NotifyOutcome>;
  /**
   * Posts one message per preflight change (preflightMessage.ts): a certificate that now
   * will fail to renew, or is ready again. "sent" only when every one was. Never throws.
   */
  notifyPreflight(changes: readonly PreflightChange[], log: Logger): Promise<NotifyOutcome>;
  /**
   * Posts one message per issuance a Certificate Transparency watch found unexpected
   * (issuanceMessage.ts), whatever CERTSCHED_NOTIFY_SUCCESS says, one after the other; "sent"
   * only when every one was. Never throws.
   */
  notifyIssuances(issuances: readonly SeenIssuance[], log: Logger): Promise<NotifyOutcome>;
  /**
   * Posts one message per vault alert of a Key Vault event (vaultAlertMessage.ts): a vault
   * certificate expiring with nothing to fix it in time, or one no account renews. Whatever
   * CERTSCHED_NOTIFY_SUCCESS says, one after the other; "sent" only when every one was. Never
   * throws.
   */
  notifyVaultAlerts(alerts: readonly VaultAlert[], log: Logger): Promise<NotifyOutcome>;
  /**
   * Posts one message for the certificates certsched does not keep that entered the
   * unmanaged-and-expiring set in one estate run (estateMessage.ts), whatever
   * CERTSCHED_NOTIFY_SUCCESS says. Never throws.
   */
  notifyEstate(alert: EstateAlert, log: Logger): Promise<NotifyOutcome>;
  close(): Promise<void>;
}

/** No webhook configured. */
export const noNotifier: Notifier = {
  notify: async () => "disabled",
  notifyVerification: async () => "disabled",
  notifyPreflight: async () => "disabled",
  notifyIssuances: async () => "disabled",
  notifyVaultAlerts: async () => "disabled",
  notifyEstate: async () => "disabled",
  close: async () => {},
};
