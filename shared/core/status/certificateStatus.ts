import { redact } from "../../lib/redact/redact.js";
import { type AriPart, ariPart } from "../ari/ariView.js";
import { daysLeft } from "../certificate/dates.js";
import type { InventoryRecord, VerificationRecord } from "../ports/inventory.js";
import type { LedgerOutcome, LedgerRecord } from "../ports/ledger.js";
import { decide } from "../renewal/decide.js";
import { BROWSER_REFUSES, CRITICAL_DAYS } from "../verification/judge.js";
import type { AccountCalendar, TimingInput } from "../windows/timing.js";
import { type PreflightView, preflightView, statusLabel } from "./preflightView.js";
import { type WindowPart, windowOf, windowWords } from "./windowView.js";

/**
 * One certificate's status for people and programs: the inventory record, the
 * ledger row and the last verification merged into one view, with one overall word. Pure: the
 * clock and the settings come in; nothing is read or written here (loadStatus.ts reads).
 */

/**
 * The overall words, in precedence order: the first that applies wins (worst first, so a
 * person reading one word sees the thing to act on).
 *
 * 1. `expired`: the expiry users see has passed (now > notAfter; X.509 validity includes
 *    notAfter itself). The expiry users see is the one the last verification read where they
 *    look (served), else the one the service reported.
 * 2. `stuck`: the current renewal episode is stuck: the ledger says so, or the sweep would have
 *    said so at the service's last word (the same expiry still reported a day after the first
 *    request: decide.ts, as of the inventory's `lastSeen`).
 * 3. `failed`: the last request of the current episode failed (the service refused it, or it
 *    failed before it could be acted on), or the last verification found the served certificate
 *    fails a browser's check (`incomplete-chain`, `untrusted`, `mismatch`, `weak`, `too-long`).
 * 4. `not-landed` / `not-synced`: the last verification found an accepted renewal (a vault's new
 *    version) not yet where users look after CERTSCHED_VERIFY_WINDOW (CERTSCHED_SYNC_WINDOW).
 * 5. `pending`: a renewal of the current episode is in flight (claimed, sent, scheduled, or sent
 *    with no answer: `answer-unknown`), or the last verification said `pending`. A renewal in
 *    flight is pending, not expiring, as in `certsched verify` (docs/contracts/verify.md).
 * 6. `expiring`: fewer than CERTSCHED_VERIFY_WARN_DAYS whole days left; `critical` below 7.
 * 7. `unverifiable`: the last verification could not read it (nothing to look at, or no answer).
 * 8. `ok`: an expiry is known and none of the above applies.
 * 9. `unknown`: nothing is known but the name (no expiry from the service or a verification).
 *
 * A ledger row belongs to the current episode unless a newer certificate is known: the service
 * reports another expiry than the row's `expiryAtRequest`, or the served one expires later. A
 * row of an earlier episode is shown but decides nothing (its renewal landed).
 */
export const STATUS_WORDS = [
  "expired",
  "stuck",
  "failed",
  "not-landed",
  "not-synced",
  "pending",
  "expiring",
  "unverifiable",
  "ok",
  "unknown",
] as const;

export type StatusWord = (typeof STATUS_WORDS)[number];

/** Ledger states in which a renewal is in flight (sent or about to be). */
const IN_FLIGHT: ReadonlySet<LedgerOutcome> = new Set([
  "claimed",
  "sent",
  "renewal-scheduled",
  "answer-unknown",
]);

export interface StatusOptions {
  readonly now: Date;
  /** CERTSCHED_RENEWAL_GRACE in ms (the sweep's own stuck rule uses it). */
  readonly graceMs: number;
  /** CERTSCHED_VERIFY_WARN_DAYS: `expiring` below this many whole days left (default 14). */
  readonly warnDays: number;
  /** The account's renewal calendar, when it declares one: each status then has its `window`. */
  readonly calendar?: AccountCalendar | undefined;
  /** The renewal timer's next firing (CERTSCHED_RENEWAL_SCHEDULE), for the calendar. */
  readonly nextTick?: TimingInput["nextTick"];
}

/** What is known about one certificate; each part may be missing. */
export interface StatusInput {
  readonly certificateName: string;
  readonly inventory?: InventoryRecord | undefined;
  readonly ledger?: LedgerRecord | undefined;
}

/** The ledger row as shown: what the last request was, how it ended, and why. */
export interface LedgerView {
  /** The ledger's state; `answer-unknown`: sent, no answer in time (it may be scheduled). */
  readonly outcome: LedgerOutcome;
  /** The decision's reason constant (decide.ts VerdictReason, "ManualRequest"). */
  readonly reason: string | null;
  readonly attempts: number;
  readonly firstRequestedAt: string | null;
  readonly lastRequestedAt: string | null;
  /** The last answer or failure's cause, as recorded (redacted). */
  readonly detail: string | null;
  /** False: the row is of an earlier certificate (its renewal landed) and decides nothing. */
  readonly current: boolean;
  /** Stuck as the next sweep would see it. */
  readonly stuck: boolean;
}

/** The last verification, as recorded with the inventory. */
export interface VerificationView {
  readonly at: string;
  /** The verification's own status (docs/contracts/verify.md), or `unverifiable`. */
  readonly status: string;
  readonly critical: boolean;
  readonly source: "tls" | "keyvault";
  readonly domain: string;
  readonly servedNotAfter: string | null;
  /** Days left at the time of the verification. */
  readonly daysLeft: number | null;
  readonly detail: string;
}

/** What the inventory knows about the certificate besides dates. */
export interface InventoryView {
  readonly source: string;
  readonly target: string | null;
  readonly renewal: string | null;
  readonly rootDomain: string | null;
  readonly keyVaultName: string | null;
  readonly keyVaultCertificateName: string | null;
  readonly firstSeen: string;
  readonly lastSeen: string;
}

/** The view of one certificate; dates are ISO-8601 UTC, days are whole days left now. */
export interface CertificateStatus extends AriPart, WindowPart {
  readonly certificateName: string;
  readonly id: number | null;
  readonly status: StatusWord;
  /** The word, with a will-fail preflight beside it: `ok · will fail (caa-forbids)` (preflightView.ts). */
  readonly label: string;
  /** One line for people: why this word (redacted). */
  readonly why: string;
  /** `expiring` below 7 days left, or `expired`. */
  readonly critical: boolean;
  readonly expiry: {
    /** As the service last reported it. */
    readonly service: string | null;
    readonly serviceDaysLeft: number | null;
    /** As the last verification read it where users look. */
    readonly served: string | null;
    readonly servedDaysLeft: number | null;
  };
  readonly ledger: LedgerView | null;
  readonly verification: VerificationView | null;
  readonly inventory: InventoryView | null;
  /** The last preflight; null: never checked. */
  readonly preflight: PreflightView | null;
}

const iso = (d: Date | undefined) => (d ? d.toISOString() : null);

/** Whether the ledger row is about the certificate that is there now (see STATUS_WORDS). */
function isCurrent(record: LedgerRecord, service: Date | undefined, served: Date | undefined) {
  const asked = record.expiryAtRequest.getTime();
  if (service !== undefined && service.getTime() !== asked) return false;
  return served === undefined || served.getTime() <= asked;
}

/**
 * Stuck as the sweep decides it (decide.ts), as of the service's last word: the expiry it
 * reported and when (`lastSeen`). A certificate that left the due list is not listed again, so
 * judging its old word at `now` would call a renewal that landed unseen stuck. Without the
 * service's word, only the ledger's own `stuck` counts.
 */
function isStuck(
  record: LedgerRecord,
  service: { readonly expiry: Date; readonly at: Date } | undefined,
  options: StatusOptions,
): boolean {
  if (record.outcome === "stuck") return true;
  if (service === undefined) return false;
  const asOf = service.at.getTime() < options.now.getTime() ? service.at : options.now;
  const facts = { expiryDate: service.expiry, record, now: asOf, graceMs: options.graceMs };
  return decide(facts).action === "stuck";
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** What the status word is judged from: the inventory record, the ledger row, the clock. */
interface StatusFacts {
  readonly now: Date;
  readonly warnDays: number;
  readonly ledger: LedgerRecord | undefined;
  readonly verification: VerificationRecord | undefined;
  /** The expiry the last verification read where users look. */
  readonly served: Date | undefined;
  /** What users see first; the service's word when nothing was read where they look. */
  readonly effective: Date | undefined;
  /** Whole days left of `effective`. */
  readonly left: number | undefined;
  /** Whether the ledger row is of the current episode (isCurrent). */
  readonly current: boolean;
  /** Whether the current episode is stuck (isStuck). */
  readonly stuck: boolean;
  /** ": <the row's detail>", redacted, or nothing. */
  readonly cause: string;
}

/** A status word and the one line that says why. */
interface Verdict {
  readonly status: StatusWord;
  readonly why: string;
}

/** One check of the chain: its word when it applies, else undefined (the next one decides). */
type StatusCheck = (f: StatusFacts) => Verdict | undefined;

const expired: StatusCheck = ({ effective, served, now }) =>
  effective && now.getTime() > effective.getTime()
    ? {
        status: "expired",
        why: `expired at ${effective.toISOString()} (${served ? "as served" : "as the service says"})`,
      }
    : undefined;

const stuckEpisode: StatusCheck = ({ ledger, stuck, cause }) =>
  ledger && stuck
    ? {
        status: "stuck",
        why: `still due since the first request at ${iso(ledger.firstRequestedAt) ?? "?"} (${plural(ledger.attempts, "attempt")})${cause}`,
      }
    : undefined;

const requestFailed: StatusCheck = ({ ledger, current, cause }) =>
  ledger && current && ledger.outcome === "failed"
    ? {
        status: "failed",
        why: `the last renewal request failed (${plural(ledger.attempts, "attempt")})${cause}`,
      }
    : undefined;

const browserRefuses: StatusCheck = ({ verification }) =>
  verification !== undefined && BROWSER_REFUSES.has(verification.status)
    ? {
        status: "failed",
        why: `the served certificate is ${verification.status}: ${verification.detail}`,
      }
    : undefined;

const notLanded: StatusCheck = ({ verification }) =>
  verification?.status === "not-landed" || verification?.status === "not-synced"
    ? { status: verification.status, why: verification.detail }
    : undefined;

const inFlight: StatusCheck = ({ ledger, current }) =>
  ledger && current && IN_FLIGHT.has(ledger.outcome)
    ? {
        status: "pending",
        why:
          ledger.outcome === "answer-unknown"
            ? `renewal sent at ${iso(ledger.lastRequestedAt) ?? "?"} without an answer in time: it may be scheduled (check with certsched get)`
            : `renewal ${ledger.outcome === "renewal-scheduled" ? "scheduled" : "being requested"} at ${iso(ledger.lastRequestedAt ?? ledger.claimedAt) ?? "?"}`,
      }
    : undefined;

const verifiedPending: StatusCheck = ({ verification }) =>
  verification?.status === "pending" ? { status: "pending", why: verification.detail } : undefined;

const expiring: StatusCheck = ({ effective, left, warnDays }) =>
  effective && left !== undefined && left < warnDays
    ? {
        status: "expiring",
        why: `${plural(left, "day")} left (expires ${effective.toISOString()}), fewer than ${warnDays}`,
      }
    : undefined;

const unverifiable: StatusCheck = ({ verification }) =>
  verification?.status === "unverifiable" || verification?.status === "unreachable"
    ? { status: "unverifiable", why: verification.detail }
    : undefined;

const expiryKnown: StatusCheck = ({ effective, left }) =>
  effective ? { status: "ok", why: `${plural(left ?? 0, "day")} left` } : undefined;

/** The checks in STATUS_WORDS' order: the first that applies wins. */
const STATUS_CHECKS: readonly StatusCheck[] = [
  expired,
  stuckEpisode,
  requestFailed,
  browserRefuses,
  notLanded,
  inFlight,
  verifiedPending,
  expiring,
  unverifiable,
  expiryKnown,
];

/** The first word that applies; `unknown` when none does. */
function verdictOf(facts: StatusFacts): Verdict {
  for (const check of STATUS_CHECKS) {
    const verdict = check(facts);
    if (verdict) return verdict;
  }
  return { status: "unknown", why: "no expiry known from the service or a verification" };
}

/** The facts of one certificate: which expiry users see, and whether its ledger row counts. */
function factsOf(input: StatusInput, options: StatusOptions): StatusFacts {
  const { inventory, ledger } = input;
  const { now } = options;
  const verification = inventory?.lastVerification;
  const service = inventory?.serviceExpiry;
  const served = verification?.servedNotAfter;
  const current = ledger ? isCurrent(ledger, service, served) : false;
  const said = service && inventory ? { expiry: service, at: inventory.lastSeen } : undefined;
  const stuck = ledger !== undefined && current && isStuck(ledger, said, options);
  // What users see first; the service's word when nothing was read where they look.
  const effective = served ?? service;
  const left = effective ? daysLeft(effective, now) : undefined;
  const cause = ledger?.detail ? `: ${redact(ledger.detail)}` : "";
  return {
    now,
    warnDays: options.warnDays,
    ledger,
    verification,
    served,
    effective,
    left,
    current,
    stuck,
    cause,
  };
}

function ledgerView(ledger: LedgerRecord, current: boolean, stuck: boolean): LedgerView {
  return {
    outcome: ledger.outcome,
    reason: ledger.reason ?? null,
    attempts: ledger.attempts,
    firstRequestedAt: iso(ledger.firstRequestedAt),
    lastRequestedAt: iso(ledger.lastRequestedAt),
    detail: ledger.detail ? redact(ledger.detail) : null,
    current,
    stuck,
  };
}

function verificationView(verification: VerificationRecord): VerificationView {
  return {
    at: verification.at.toISOString(),
    status: verification.status,
    critical: verification.critical === true,
    source: verification.source,
    domain: verification.domain,
    servedNotAfter: iso(verification.servedNotAfter),
    daysLeft: verification.daysLeft ?? null,
    detail: redact(verification.detail),
  };
}

function inventoryView(inventory: InventoryRecord): InventoryView {
  return {
    source: inventory.source,
    target: inventory.target ?? null,
    renewal: inventory.renewal ?? null,
    rootDomain: inventory.rootDomain ?? null,
    keyVaultName: inventory.keyVaultName ?? null,
    keyVaultCertificateName: inventory.keyVaultCertificateName ?? null,
    firstSeen: inventory.firstSeen.toISOString(),
    lastSeen: inventory.lastSeen.toISOString(),
  };
}

/** The label with the calendar's word beside it: `ok · waiting for window (opens ...)`. */
function withWindow(label: string, part: WindowPart): string {
  const w = part.window;
  return w && w.state !== "open" ? `${label} · ${windowWords(w)}` : label;
}

/** The status of one certificate: the first word of STATUS_WORDS that applies. */
export function certificateStatus(input: StatusInput, options: StatusOptions): CertificateStatus {
  const { inventory, ledger } = input;
  const { now } = options;
  const facts = factsOf(input, options);
  const { verification, served, left, current } = facts;
  const service = inventory?.serviceExpiry;
  const verdict = verdictOf(facts);
  const preflight = preflightView(inventory?.lastPreflight, now);
  const window = windowOf(options.calendar, input.certificateName, {
    now,
    // As the sweep judges it: the expiry the service reports, else the one served.
    expiry: service ?? served,
    ariEnd: inventory?.ari?.end,
    nextTick: options.nextTick,
  });
  return {
    certificateName: input.certificateName,
    id: ledger?.id ?? inventory?.id ?? null,
    status: verdict.status,
    label: withWindow(statusLabel(verdict.status, preflight), window),
    why: redact(verdict.why),
    critical:
      verdict.status === "expired" ||
      (verdict.status === "expiring" && left !== undefined && left < CRITICAL_DAYS),
    expiry: {
      service: iso(service),
      serviceDaysLeft: service ? daysLeft(service, now) : null,
      served: iso(served),
      servedDaysLeft: served ? daysLeft(served, now) : null,
    },
    ledger: ledger ? ledgerView(ledger, current, facts.stuck) : null,
    verification: verification ? verificationView(verification) : null,
    inventory: inventory ? inventoryView(inventory) : null,
    preflight,
    ...ariPart(inventory, now),
    ...window,
  };
}
