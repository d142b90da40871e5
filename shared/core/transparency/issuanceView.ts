import { escapeControl } from "../../lib/text/escapeControl.js";
import { shownName, someNames } from "../../lib/text/names.js";
import { instantText } from "../verification/served.js";
import type { IssuanceVerdict, SeenIssuance } from "./issuance.js";

/**
 * How every surface shows an issuance (CLI, HTTP, dashboard, webhook, log): its state, why, and
 * a public link. Text in an issuance was escaped when it was read; surfaces still escape for
 * their medium (HTML, Markdown).
 */

/** What a person sees first: acknowledged wins over unexpected. */
export type IssuanceState = "expected" | "pending" | "unexpected" | "acknowledged";

export function issuanceState(seen: SeenIssuance): IssuanceState {
  if (seen.verdict.kind === "unexpected" && seen.acknowledged) return "acknowledged";
  return seen.verdict.kind;
}

/** Unexpected and not acknowledged: a red line in status and the dashboard. */
export function needsAttention(seen: SeenIssuance): boolean {
  return issuanceState(seen) === "unexpected";
}

/** The verdict in words. */
export function verdictText(verdict: IssuanceVerdict): string {
  switch (verdict.kind) {
    case "expected":
      return verdict.because === "request"
        ? `issued after certsched's request for "${shownName(verdict.certificateName)}" at ${instantText(verdict.sentAt)}, which landed`
        : `same ${verdict.because === "public-key" ? "public key" : "TBS hash"} as the ${verdict.where === "vault" ? "vault" : verdict.where === "receipt" ? "renewed" : "served"} certificate "${shownName(verdict.certificateName)}"`;
    case "pending":
      return `may be certsched's request for "${shownName(verdict.certificateName)}" sent at ${instantText(verdict.sentAt)}: judged at ${instantText(verdict.until)} unless it lands first`;
    case "unexpected":
      return verdict.why;
  }
}

/** crt.sh's page of the certificate (or precertificate) by its SHA-256; undefined without one. */
export function issuanceLink(seen: SeenIssuance): string | undefined {
  const hash = seen.issuance.certSha256;
  return hash && /^[0-9a-f]{64}$/.test(hash) ? `https://crt.sh/?sha256=${hash}` : undefined;
}

const when = (d: Date | undefined) => (d ? instantText(d) : "?");

/** "a.example.com, b.example.com and 3 more". */
export function issuanceNames(seen: SeenIssuance): string {
  const { dnsNames, moreNames } = seen.issuance;
  if (dnsNames.length === 0) return "(no names)";
  const shown = someNames(dnsNames);
  return moreNames > 0 ? `${shown} (+${moreNames} not kept)` : shown;
}

/** Its validity ended at or before `now`; false when its end is unknown. */
export function issuanceExpired(seen: SeenIssuance, now: Date): boolean {
  const notAfter = seen.issuance.notAfter;
  return notAfter !== undefined && notAfter.getTime() <= now.getTime();
}

/** Revoked or expired, in words (revoked first: it says more); undefined for a live certificate. */
export function issuanceCondition(seen: SeenIssuance, now: Date): string | undefined {
  if (seen.issuance.revoked) return "revoked";
  return issuanceExpired(seen, now) ? "expired" : undefined;
}

/**
 * One line: the alert's log line and the CLI's summary use it. Control and bidi characters are
 * made visible once more (the adapter did when it read them; a row stored before that rule, or a
 * store of another make, must not forge a log line either).
 */
export function issuanceLine(seen: SeenIssuance): string {
  const i = seen.issuance;
  return escapeControl(
    `issuance ${i.id} for "${shownName(seen.watched)}" of account "${shownName(seen.account)}": ${issuanceNames(seen)} by ${i.issuer ?? "an unknown issuer"}, valid ${when(i.notBefore)} to ${when(i.notAfter)}`,
  );
}

/** The JSON view (GET /api/issuances, `certsched ct --json`, the webhook's JSON). */
export interface IssuanceView {
  readonly account: string;
  readonly id: string;
  readonly watched: string;
  readonly state: IssuanceState;
  readonly why: string;
  readonly names: readonly string[];
  readonly moreNames: number;
  readonly issuer?: string;
  readonly notBefore?: string;
  readonly notAfter?: string;
  readonly revoked: boolean;
  readonly expired: boolean;
  readonly certificateName?: string;
  readonly firstSeenAt: string;
  readonly link?: string;
  readonly acknowledged?: { readonly at: string; readonly by: string; readonly reason: string };
  readonly problems: readonly string[];
}

export function issuanceView(seen: SeenIssuance, now: Date): IssuanceView {
  const i = seen.issuance;
  const v = seen.verdict;
  const link = issuanceLink(seen);
  const ack = seen.acknowledged;
  return {
    account: seen.account,
    id: i.id,
    watched: seen.watched,
    state: issuanceState(seen),
    why: verdictText(v),
    names: i.dnsNames,
    moreNames: i.moreNames,
    ...(i.issuer === undefined ? {} : { issuer: i.issuer }),
    ...(i.notBefore ? { notBefore: instantText(i.notBefore) } : {}),
    ...(i.notAfter ? { notAfter: instantText(i.notAfter) } : {}),
    revoked: i.revoked,
    // Both may hold: a revoked certificate also expires.
    expired: issuanceExpired(seen, now),
    ...("certificateName" in v ? { certificateName: v.certificateName } : {}),
    firstSeenAt: instantText(seen.firstSeenAt),
    ...(link ? { link } : {}),
    ...(ack ? { acknowledged: { at: instantText(ack.at), by: ack.by, reason: ack.reason } } : {}),
    problems: i.problems,
  };
}
