import type { Trigger } from "../history/historyEvent.js";
import type { Logger } from "../log.js";
import type { Runtime } from "../runtime.js";
import type { VerifyStatus } from "./judge.js";
import type { ProbeOptions } from "./tlsProbe.js";

/**
 * One verification run over the inventory (issue 12): every known certificate, every
 * CERTSCHED_WATCH endpoint, judged where users look (TLS or the vault), recorded back.
 * The timer, the sweep, `POST /api/verifications` and `certsched verify` all run this.
 */

/** `unverifiable`: a target with no endpoint or vault to look at (DNS-only, stand-alone...). */
export type InventoryStatus = VerifyStatus | "unverifiable";

export interface InventoryResult {
  readonly domain: string;
  readonly certificateName?: string;
  readonly source: "tls" | "keyvault";
  readonly status: InventoryStatus;
  /** Present (true) only for a critically `expiring` certificate. */
  readonly critical?: true;
  /** Present whenever a certificate was read. */
  readonly servedNotAfter?: string;
  readonly daysLeft?: number;
  readonly issuer?: string;
  readonly serial?: string;
  readonly thumbprint?: string;
  readonly detail: string;
  /** For `unreachable`: true once CERTSCHED_VERIFY_UNREACHABLE_AFTER has passed since the first failure. */
  readonly pastGrace?: boolean;
}

/** A result whose status differs from the one recorded before (webhooks, history). */
export interface StatusChange {
  readonly certificateName?: string;
  readonly domain: string;
  /** Undefined: never verified before. */
  readonly from?: InventoryStatus;
  readonly to: InventoryStatus;
  readonly critical: boolean;
}

export interface InventoryVerification {
  readonly at: Date;
  readonly results: InventoryResult[];
  /** Results per status (statuses that occur). */
  readonly counts: Readonly<Record<string, number>>;
  /** True when any result fails the run (contracts/verify.md, exit 1). */
  readonly failed: boolean;
  /** One line per failing result, naming the certificate, redacted. */
  readonly problems: string[];
  readonly changes: StatusChange[];
}

export interface VerifyInventoryOptions {
  readonly trigger: Trigger;
  /** Only these certificate names (and nothing watched); default: the whole inventory. */
  readonly names?: readonly string[];
  /** Trusted certificates instead of Node's default store (tests). */
  readonly ca?: ProbeOptions["ca"];
  readonly signal?: AbortSignal;
  readonly runId?: string;
}

/** Placeholder until the inventory run lands: verifies nothing. */
export async function verifyInventory(
  runtime: Runtime,
  _log: Logger,
  _options: VerifyInventoryOptions,
): Promise<InventoryVerification> {
  return { at: runtime.now(), results: [], counts: {}, failed: false, problems: [], changes: [] };
}
