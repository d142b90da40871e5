import { boundDetail } from "../../lib/text/boundDetail.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../../lib/time.js";
import type { ProbeResult, ServedCertificate } from "../ports/probes.js";
import { incompleteChain, tooLong, weak } from "./browserChecks.js";
import type { Endpoint } from "./endpoint.js";
import { hasLanded, stillServed } from "./landing.js";
import { notSynced, type SyncOptions } from "./syncCheck.js";

/**
 * The verdict on one probe, as a browser would give it, then what certsched adds (a renewal in
 * flight, the warning days). The statuses in the order the contract checks them
 * (docs/contracts/verify.md): the first that applies wins.
 */
export const STATUSES = [
  "unreachable",
  "incomplete-chain",
  "untrusted",
  "mismatch",
  "weak",
  "too-long",
  "expired",
  "pending",
  "not-landed",
  "not-synced",
  "expiring",
  "ok",
] as const;

export type VerifyStatus = (typeof STATUSES)[number];

/** `unverifiable`: a target with no endpoint or vault to look at (DNS-only, stand-alone...). */
export type InventoryStatus = VerifyStatus | "unverifiable";

/** Every status, in the contract's order, `unverifiable` last (counts, tables). */
export const INVENTORY_STATUSES: readonly InventoryStatus[] = [...STATUSES, "unverifiable"];

/** Statuses that mean a browser refuses the served certificate (the status page's `failed`). */
export const BROWSER_REFUSES: ReadonlySet<string> = new Set<VerifyStatus>([
  "incomplete-chain",
  "untrusted",
  "mismatch",
  "weak",
  "too-long",
]);

/** `expiring` is critical below this many whole days left. */
export const CRITICAL_DAYS = 7;

/** A renewal the service accepted (answered 2xx); the window starts at that answer. */
export interface AcceptedRenewal {
  readonly acceptedAt: Date;
  /** The certificate's expiry when the renewal was requested. */
  readonly expiryAtRequest: Date;
  /** SHA-256 served before the request, when known: then the fingerprints decide (landing.ts). */
  readonly beforeThumbprint?: string | undefined;
}

/** `vault` and `syncWindowMs` (syncCheck.ts): only for a domain bound to a vault certificate. */
export interface JudgeOptions extends SyncOptions {
  readonly now: Date;
  /** CERTSCHED_VERIFY_WARN_DAYS. */
  readonly warnDays: number;
  /** CERTSCHED_VERIFY_WINDOW, ms. */
  readonly windowMs: number;
  /** Only for a certificate with a renewal certsched saw accepted. */
  readonly renewal?: AcceptedRenewal | undefined;
}

export interface Verdict {
  readonly status: VerifyStatus;
  /** True only for an `expiring` certificate with fewer than CRITICAL_DAYS left. */
  readonly critical: boolean;
  /** ISO-8601 UTC, ending Z; present whenever a certificate was read. */
  readonly servedNotAfter?: string;
  /** floor((notAfter - now) / 24 h); present whenever a certificate was read. */
  readonly daysLeft?: number;
  /**
   * The served certificate's issuer, control characters escaped, bounded as a detail is (a
   * server may send a 30,000-character name; the --json output, the API and webhooks show it).
   */
  readonly issuer?: string;
  /** Upper-case hex, bounded as the issuer is (DER allows an integer of any length). */
  readonly serial?: string;
  /** SHA-256, upper-case hex. */
  readonly thumbprint?: string;
  /** Why, in one line for people; control characters escaped. */
  readonly detail: string;
}

/** What a check found: a status and why, or nothing (the next check decides). */
type Finding = {
  readonly status: VerifyStatus;
  readonly critical?: boolean;
  readonly detail: string;
};

interface Facts {
  readonly host: string;
  readonly certificate: ServedCertificate;
  readonly chainCode: string | undefined;
  readonly issuerFound: boolean | undefined;
  readonly nameProblem: string | undefined;
  readonly daysLeft: number;
  readonly options: JudgeOptions;
}

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;

/** "2 h", "90 min", "45 s": durations in settings' terms. */
function span(ms: number): string {
  if (ms >= DAY_MS && ms % DAY_MS === 0) return plural(ms / DAY_MS, "day");
  if (ms >= HOUR_MS && ms % HOUR_MS === 0) return `${ms / HOUR_MS} h`;
  if (ms >= MINUTE_MS && ms % MINUTE_MS === 0) return `${ms / MINUTE_MS} min`;
  return `${Math.round(ms / 1000)} s`;
}

/** A rough age for people: minutes, hours or days, rounded down. */
function age(ms: number): string {
  if (ms < HOUR_MS) return plural(Math.floor(ms / MINUTE_MS), "minute");
  if (ms < DAY_MS) return plural(Math.floor(ms / HOUR_MS), "hour");
  return plural(Math.floor(ms / DAY_MS), "day");
}

const iso = (d: Date) => d.toISOString();

const untrusted = (f: Facts): Finding | undefined => {
  const issuer = escapeControl(f.certificate.issuer);
  // A SHA-1 leaf whose chain Node refuses for that alone has no chainCode (tlsProbe.ts): `weak`.
  if (f.chainCode !== undefined) {
    return {
      status: "untrusted",
      detail: `the chain does not verify against Node's CA store and NODE_EXTRA_CA_CERTS (${escapeControl(f.chainCode)}); issued by ${issuer}`,
    };
  }
  // The probe leaves the leaf's dates to this clock (tlsProbe.ts). Before its notBefore a
  // browser refuses it as OpenSSL does (CERT_NOT_YET_VALID): not a status of its own in the
  // contract, and never `ok`.
  if (f.options.now.getTime() < f.certificate.notBefore.getTime()) {
    return {
      status: "untrusted",
      detail: `the certificate is not valid before ${iso(f.certificate.notBefore)} (CERT_NOT_YET_VALID); issued by ${issuer}`,
    };
  }
  return undefined;
};

/**
 * Names listed in a mismatch: a certificate may carry hundreds, and the detail is one line for
 * people, a stored row's property and a webhook message.
 */
const NAMES_SHOWN = 10;

/** Longest name shown in a mismatch: a SAN entry may be 30,000 characters long. */
const NAME_SHOWN_LENGTH = 100;

const mismatch = (f: Facts): Finding | undefined => {
  if (f.nameProblem === undefined) return undefined;
  const all = f.certificate.altNames;
  const more = all.length > NAMES_SHOWN ? ` and ${all.length - NAMES_SHOWN} more` : "";
  const shown = (name: string) => boundDetail(name, NAME_SHOWN_LENGTH);
  const names =
    all.length > 0
      ? `${all.slice(0, NAMES_SHOWN).map(shown).join(", ")}${more}`
      : shown(f.certificate.subject);
  return {
    status: "mismatch",
    detail: `the certificate served does not cover ${f.host}: it names ${names}`,
  };
};

const expired = (f: Facts): Finding | undefined => {
  const ago = f.options.now.getTime() - f.certificate.notAfter.getTime();
  // X.509 validity includes notAfter itself: expired once it is in the past.
  if (ago <= 0) return undefined;
  return {
    status: "expired",
    detail: `expired at ${iso(f.certificate.notAfter)}, ${age(ago)} ago`,
  };
};

const renewalInFlight = (f: Facts): Finding | undefined => {
  const renewal = f.options.renewal;
  if (renewal === undefined || hasLanded(renewal, f.certificate)) return undefined;
  const since = f.options.now.getTime() - renewal.acceptedAt.getTime();
  const still = stillServed(renewal, f.certificate);
  if (since < f.options.windowMs) {
    return {
      status: "pending",
      detail: `renewal accepted ${age(Math.max(since, 0))} ago; ${still}; waiting up to ${span(f.options.windowMs)} (CERTSCHED_VERIFY_WINDOW)`,
    };
  }
  return {
    status: "not-landed",
    detail: `renewal accepted at ${iso(renewal.acceptedAt)}, more than ${span(f.options.windowMs)} ago (CERTSCHED_VERIFY_WINDOW), but ${still}`,
  };
};

const expiring = (f: Facts): Finding | undefined => {
  if (f.daysLeft >= f.options.warnDays) return undefined;
  const critical = f.daysLeft < CRITICAL_DAYS;
  const left = `${plural(f.daysLeft, "day")} left (expires ${iso(f.certificate.notAfter)})`;
  return {
    status: "expiring",
    critical,
    detail: critical
      ? `critical: ${left}, below ${CRITICAL_DAYS}`
      : `${left}, fewer than ${f.options.warnDays} (CERTSCHED_VERIFY_WARN_DAYS)`,
  };
};

const ok = (f: Facts): Finding => ({
  status: "ok",
  detail: `trusted, covers ${f.host}, ${plural(f.daysLeft, "day")} left`,
});

/** The chain of checks, in the contract's order; `ok` closes it. */
const CHECKS: readonly ((f: Facts) => Finding | undefined)[] = [
  (f) => incompleteChain(f.certificate, f.issuerFound),
  untrusted,
  mismatch,
  (f) => weak(f.certificate),
  (f) => tooLong(f.certificate),
  expired,
  renewalInFlight,
  (f) => notSynced(f.certificate, f.options),
  expiring,
];

function unreachable(endpoint: Endpoint, probe: Extract<ProbeResult, { reached: false }>): string {
  const code = probe.code === undefined ? "" : ` (${escapeControl(probe.code)})`;
  switch (probe.step) {
    case "DNS":
      return `cannot resolve ${probe.connectedTo.replace(/:\d+$/, "")}${code}`;
    case "TCP":
      return `cannot connect to ${probe.connectedTo}${code}`;
    case "REFUSED":
      // No connection was opened: nothing to tell apart, and the address is not repeated.
      return `not probed: ${endpoint.host} resolves to an address that is not public`;
    case "TIMEOUT":
      return `no TLS handshake with ${probe.connectedTo} in time: ${escapeControl(probe.message)}`;
    default:
      return `TLS handshake with ${probe.connectedTo} for ${endpoint.host} failed${code}: ${escapeControl(probe.message)}`;
  }
}

/** floor((notAfter - now) / 24 h): negative once expired (-1 within the first day). */
export function daysLeftOf(notAfter: Date, now: Date): number {
  return Math.floor((notAfter.getTime() - now.getTime()) / DAY_MS);
}

/** Judges one probe of `endpoint`. Pure: the clock comes in `options.now`. */
export function judge(endpoint: Endpoint, probe: ProbeResult, options: JudgeOptions): Verdict {
  if (!probe.reached) {
    return { status: "unreachable", critical: false, detail: unreachable(endpoint, probe) };
  }
  const c = probe.certificate;
  const facts: Facts = {
    host: endpoint.host,
    certificate: c,
    chainCode: probe.chainProblem?.code,
    issuerFound: probe.leafIssuerFound,
    nameProblem: probe.nameProblem,
    daysLeft: daysLeftOf(c.notAfter, options.now),
    options,
  };
  let finding: Finding = ok(facts);
  for (const check of CHECKS) {
    const found = check(facts);
    if (found !== undefined) {
      finding = found;
      break;
    }
  }
  return {
    status: finding.status,
    critical: finding.critical ?? false,
    servedNotAfter: iso(c.notAfter),
    daysLeft: facts.daysLeft,
    issuer: boundDetail(c.issuer),
    serial: boundDetail(c.serial),
    thumbprint: c.thumbprint,
    detail: finding.detail,
  };
}
