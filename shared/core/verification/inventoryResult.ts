import { redact } from "../../lib/redact/redact.js";
import { boundDetail, boundWithNote } from "../../lib/text/boundDetail.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from "../../lib/time.js";
import type { InventoryRecord, VerificationRecord } from "../ports/inventory.js";
import type { ServedCertificate } from "../ports/probes.js";
import { INVENTORY_STATUSES, type InventoryStatus } from "./judge.js";
import type { VerifySettings } from "./verifySettings.js";

/**
 * What one verification run over the inventory found, and the rules on it: which
 * result needs a person, the unreachable grace, the worst of a record's domains, the record
 * kept and the problem line shown. shared/usecases/steps/verifyInventory.ts makes them.
 */

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
  /** ISO-8601 UTC; a vault certificate's version id (for the receipt of a renewal). */
  readonly notBefore?: string;
  readonly version?: string;
  /**
   * The certificate's Certificate Transparency hashes (SHA-256 of its SubjectPublicKeyInfo and of
   * its RFC 6962 TBSCertificate, 64 lower-case hex): how an issuance in the logs is matched.
   */
  readonly pubkeySha256?: string;
  readonly tbsSha256?: string;
  /** SHA-1 of the DER certificate, 40 upper-case hex: the thumbprint Azure shows. */
  readonly sha1Thumbprint?: string;
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

/** The statuses that need a person whatever else is true (contracts/verify.md, exit 1). */
const ALWAYS_BAD: ReadonlySet<InventoryStatus> = new Set([
  "incomplete-chain",
  "untrusted",
  "mismatch",
  "weak",
  "too-long",
  "expired",
  "not-landed",
  "not-synced",
]);

/**
 * Whether a result needs a person now (contracts/verify.md, exit 1): a bad status, a critically
 * expiring certificate, or an endpoint unreachable past CERTSCHED_VERIFY_UNREACHABLE_AFTER.
 */
export function needsPerson(
  result: Pick<InventoryResult, "status"> & {
    readonly critical?: boolean | undefined;
    readonly pastGrace?: boolean | undefined;
  },
): boolean {
  if (ALWAYS_BAD.has(result.status)) return true;
  if (result.status === "expiring") return result.critical === true;
  if (result.status === "unreachable") return result.pastGrace === true;
  return false;
}

/**
 * Whether a result needs a person (contracts/verify.md, exit 1): incomplete-chain, untrusted,
 * mismatch, weak, too-long, expired, not-landed, not-synced, critically expiring, unreachable past its grace. `unverifiable` never does. The
 * CLI's exit code and the timer's failed run both ask this.
 */
export function failsRun(result: InventoryResult): boolean {
  return needsPerson(result);
}

/** Results per status, in the contract's order; statuses that do not occur are left out. */
export function countInventoryStatuses(
  results: readonly Pick<InventoryResult, "status">[],
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const status of INVENTORY_STATUSES) {
    const n = results.filter((r) => r.status === status).length;
    if (n > 0) counts[status] = n;
  }
  return counts;
}

/** "24 h", "90 min", "2 d": the grace in words. */
function span(ms: number): string {
  if (ms >= DAY_MS && ms % DAY_MS === 0) return `${ms / DAY_MS} d`;
  if (ms >= HOUR_MS && ms % HOUR_MS === 0) return `${ms / HOUR_MS} h`;
  if (ms >= MINUTE_MS && ms % MINUTE_MS === 0) return `${ms / MINUTE_MS} min`;
  return `${Math.round(ms / SECOND_MS)} s`;
}

/**
 * The unreachable grace: counted from the first failed attempt on record (kept while the
 * endpoint stays unreachable), an error once CERTSCHED_VERIFY_UNREACHABLE_AFTER has passed
 * (at exactly that much, it has). With no record kept (no storage) there is no grace.
 */
export function withGrace(
  result: InventoryResult,
  owners: readonly InventoryRecord[],
  now: Date,
  settings: Pick<VerifySettings, "unreachableAfterMs">,
  kept: boolean,
): { result: InventoryResult; unreachableSince?: Date } {
  if (result.status !== "unreachable") return { result };
  if (!kept) return { result: { ...result, pastGrace: true } };
  let since = now;
  for (const owner of owners) {
    const v = owner.lastVerification;
    if (v?.status === "unreachable" && v.unreachableSince && v.unreachableSince < since)
      since = v.unreachableSince;
  }
  const pastGrace = now.getTime() - since.getTime() >= settings.unreachableAfterMs;
  const after = `${span(settings.unreachableAfterMs)} (CERTSCHED_VERIFY_UNREACHABLE_AFTER)`;
  const note = pastGrace
    ? `unreachable since ${since.toISOString()}, for at least ${after}`
    : `unreachable since ${since.toISOString()}; an error once that is ${after} ago`;
  return {
    // The note is kept whole: the cause is cut to make room for it.
    result: { ...result, pastGrace, detail: boundWithNote(result.detail, note) },
    unreachableSince: since,
  };
}

/** How bad a result is, to keep the worst of a record's domains: needs a person first. */
export function severity(r: InventoryResult): number {
  if (failsRun(r)) return 0;
  const order: readonly InventoryStatus[] = [
    "unreachable",
    "expiring",
    "pending",
    "unverifiable",
    "ok",
  ];
  const i = order.indexOf(r.status);
  return 1 + (i === -1 ? order.length : i);
}

/**
 * A certificate's CT hashes and its SHA-1 thumbprint as a result carries them: each left out when
 * it was not read.
 */
export function ctHashesOf(
  c: Pick<ServedCertificate, "pubkeySha256" | "tbsSha256" | "sha1Thumbprint">,
): Pick<InventoryResult, "pubkeySha256" | "tbsSha256" | "sha1Thumbprint"> {
  return {
    ...(c.pubkeySha256 === undefined ? {} : { pubkeySha256: c.pubkeySha256 }),
    ...(c.tbsSha256 === undefined ? {} : { tbsSha256: c.tbsSha256 }),
    ...(c.sha1Thumbprint === undefined ? {} : { sha1Thumbprint: c.sha1Thumbprint }),
  };
}

/** The verification kept in the inventory for a result. */
export function toRecord(
  r: InventoryResult,
  at: Date,
  unreachableSince: Date | undefined,
): VerificationRecord {
  const record: VerificationRecord = {
    at,
    status: r.status,
    source: r.source,
    domain: r.domain,
    detail: redact(r.detail),
    ...(r.critical ? { critical: true } : {}),
    ...(r.servedNotAfter ? { servedNotAfter: new Date(r.servedNotAfter) } : {}),
    ...(r.daysLeft === undefined ? {} : { daysLeft: r.daysLeft }),
    ...(r.issuer === undefined ? {} : { issuer: r.issuer }),
    ...(r.thumbprint === undefined ? {} : { thumbprint: r.thumbprint }),
    ...(r.serial === undefined ? {} : { serial: r.serial }),
    ...(r.notBefore ? { notBefore: new Date(r.notBefore) } : {}),
    ...(r.version === undefined ? {} : { version: r.version }),
    ...(r.pubkeySha256 === undefined ? {} : { pubkeySha256: r.pubkeySha256 }),
    ...(r.tbsSha256 === undefined ? {} : { tbsSha256: r.tbsSha256 }),
    ...(r.sha1Thumbprint === undefined ? {} : { sha1Thumbprint: r.sha1Thumbprint }),
    ...(unreachableSince ? { unreachableSince } : {}),
  };
  return record;
}

/** Longest certificate name quoted in a problem line: the line is one line for people. */
const MAX_NAME_IN_PROBLEM = 120;

/** One line for a result that needs a person: who, where, what, why; redacted and escaped. */
export function problemLine(r: InventoryResult): string {
  // A name may be 32,768 characters (the domain and the detail are bounded already).
  const who =
    r.certificateName === undefined
      ? r.domain
      : `${boundDetail(r.certificateName, MAX_NAME_IN_PROBLEM)} (${r.domain})`;
  const what = r.critical
    ? `${r.status} (critical)`
    : r.pastGrace
      ? `${r.status} past its grace`
      : r.status;
  // A certificate name comes from the service: escaped, so it cannot forge a log line or the
  // failed run's message (VerificationFailedError), which no log escaper sees.
  return escapeControl(redact(`${who}: ${what}: ${r.detail}`));
}
