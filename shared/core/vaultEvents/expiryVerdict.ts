import { boundDetail } from "../../lib/text/boundDetail.js";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../../lib/time.js";
import type { LedgerOutcome, LedgerRecord } from "../ports/ledger.js";
import { instantText } from "../verification/served.js";
import type { VaultVersion } from "../verification/syncCheck.js";
import type { VaultEvent } from "./vaultEvent.js";
import type { WatchedCertificate } from "./watchedVaults.js";

/**
 * A near-expiry or expired event judged against what certsched knows: renewed already (the
 * vault holds a later version), in hand (a renewal is on its way or will be asked for), at risk
 * (nothing will fix it in time), or a certificate no account renews. An ordered chain of
 * checks; the first that applies decides.
 */

export type ExpiryVerdict = {
  readonly kind: "renewed" | "in-hand" | "at-risk" | "unmanaged";
  /** One line for people: escaped, bounded. */
  readonly detail: string;
};

export interface ExpiryInput {
  readonly event: VaultEvent;
  /** The vault's read of the event's version. */
  readonly version: VaultVersion;
  /** The vault's current version. */
  readonly current: VaultVersion;
  readonly certificate?: WatchedCertificate | undefined;
  /** The ledger's record of the managed certificate's renewals. */
  readonly ledger?: LedgerRecord | undefined;
  readonly now: Date;
  /** CERTSCHED_VERIFY_WINDOW, ms: how long an accepted renewal may take to land. */
  readonly verifyWindowMs: number;
}

/**
 * A ledger record whose episode began for an expiry more than this before the version's is an
 * earlier renewal's (that one landed): it says nothing about this expiry.
 */
export const EPISODE_TOLERANCE_MS = DAY_MS;

/** Sent and possibly accepted: a renewal that may still land. */
const REQUESTED: ReadonlySet<LedgerOutcome> = new Set([
  "renewal-scheduled",
  "answer-unknown",
  "sent",
]);

type Check = (input: ExpiryInput) => ExpiryVerdict | undefined;

const expired = (at: Date, now: Date) => at.getTime() <= now.getTime();

const sameVersion = (a: VaultVersion, b: VaultVersion) =>
  a.version !== undefined && b.version !== undefined
    ? a.version.toLowerCase() === b.version.toLowerCase()
    : a.thumbprint.toUpperCase() === b.thumbprint.toUpperCase();

/** "24 h", "90 min", "45 s". */
export function windowText(ms: number): string {
  if (ms >= HOUR_MS && ms % HOUR_MS === 0) return `${ms / HOUR_MS} h`;
  if (ms >= MINUTE_MS && ms % MINUTE_MS === 0) return `${ms / MINUTE_MS} min`;
  return `${Math.round(ms / 1000)} s`;
}

const renewed: Check = ({ version, current, now }) => {
  if (sameVersion(version, current)) return undefined;
  if (current.notAfter.getTime() <= version.notAfter.getTime()) return undefined;
  if (expired(current.notAfter, now)) return undefined;
  return {
    kind: "renewed",
    detail: `the vault's current version ${current.version ?? current.thumbprint} expires ${instantText(current.notAfter)}: renewed already`,
  };
};

const unmanaged: Check = ({ event, version, certificate, now }) => {
  if (certificate?.managed !== undefined) return undefined;
  const at = version.notAfter;
  const days = Math.floor((at.getTime() - now.getTime()) / DAY_MS);
  const when = expired(at, now)
    ? `expired at ${instantText(at)}`
    : `expires at ${instantText(at)} (${days} ${days === 1 ? "day" : "days"})`;
  return {
    kind: "unmanaged",
    detail: `unmanaged certificate expiring: ${event.vaultName}/${event.certificateName} in subscription ${event.subscriptionId}, resource group ${event.resourceGroup}, version ${event.version} ${when}`,
  };
};

const expiredEvent: Check = ({ event, version }) =>
  event.kind === "expired"
    ? {
        kind: "at-risk",
        detail: `expired at ${instantText(version.notAfter)} and the vault holds no later version`,
      }
    : undefined;

/** The ledger's record when it is about this expiry's renewal. */
function episodeOf({ ledger, version }: ExpiryInput): LedgerRecord | undefined {
  if (ledger === undefined) return undefined;
  const earlier = version.notAfter.getTime() - ledger.expiryAtRequest.getTime();
  return earlier > EPISODE_TOLERANCE_MS ? undefined : ledger;
}

const failedOrStuck: Check = (input) => {
  const ledger = episodeOf(input);
  const at = ledger?.lastRequestedAt ?? ledger?.claimedAt;
  const when = at === undefined ? "an unknown time" : instantText(at);
  if (ledger?.outcome === "failed") {
    return {
      kind: "at-risk",
      detail: `its last renewal request failed at ${when}: ${ledger.detail ?? "no detail kept"}`,
    };
  }
  if (ledger?.outcome === "stuck") {
    const first = ledger.firstRequestedAt ? instantText(ledger.firstRequestedAt) : "unknown";
    return {
      kind: "at-risk",
      detail: `its renewal is stuck: still due a day after the first request (${first}), asked for again at ${when}`,
    };
  }
  return undefined;
};

const requested: Check = (input) => {
  const ledger = episodeOf(input);
  const at = ledger?.lastRequestedAt;
  if (ledger === undefined || at === undefined || !REQUESTED.has(ledger.outcome)) return undefined;
  if (input.now.getTime() - at.getTime() < input.verifyWindowMs) {
    return {
      kind: "in-hand",
      detail: `renewal requested at ${instantText(at)}, waiting for it to land`,
    };
  }
  return {
    kind: "at-risk",
    detail: `renewal requested at ${instantText(at)} has not landed after ${windowText(input.verifyWindowMs)} (CERTSCHED_VERIFY_WINDOW)`,
  };
};

const preflightFails: Check = ({ certificate }) => {
  const preflight = certificate?.managed?.lastPreflight;
  if (preflight?.status !== "will-fail") return undefined;
  const failed = preflight.checks.filter((c) => c.status === "fail");
  const reasons = failed.map((c) => `${c.reason ?? c.check}: ${c.detail}`).join("; ");
  return {
    kind: "at-risk",
    detail: `preflight (${instantText(preflight.at)}) says its renewal will fail: ${reasons || "a check failed"}`,
  };
};

const CHAIN: readonly Check[] = [
  renewed,
  unmanaged,
  expiredEvent,
  failedOrStuck,
  requested,
  preflightFails,
];

/** The verdict of the first check that applies; escaped and bounded. */
export function judgeExpiry(input: ExpiryInput): ExpiryVerdict {
  for (const check of CHAIN) {
    const verdict = check(input);
    if (verdict !== undefined) return { kind: verdict.kind, detail: boundDetail(verdict.detail) };
  }
  return {
    kind: "in-hand",
    detail: "certsched renews it when the service lists it due (the daily sweep); nothing failed",
  };
}
