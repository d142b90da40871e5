import { DAY_MS } from "../../lib/time.js";
import type { AriAnswer, AriQuestion } from "../ports/ari.js";
import { decideAri } from "./window.js";

/**
 * What certsched keeps of the CA's word on one certificate (ARI, RFC 9773), with its
 * inventory row: the last window the CA suggested, when to ask again (its Retry-After, honoured
 * across processes), and the last failure, with when it was last reported (once a day).
 */
export interface AriRecord {
  /** The CertID asked about: a new certificate served means a new question, asked now. */
  readonly certId: string;
  readonly directoryUrl: string;
  /** The last suggested window; kept through a failure (the CA's word stands until it changes). */
  readonly start?: Date | undefined;
  readonly end?: Date | undefined;
  /** The CA's explanation (http/https only, validated on the way in); shown to people, escaped. */
  readonly explanationUrl?: string | undefined;
  readonly askedAt: Date;
  /** Not asked again before this (Retry-After, clamped to 1 min..1 day). */
  readonly nextAskAt: Date;
  /** The last ask's failure, one line; absent after an answer. */
  readonly problem?: string | undefined;
  /** When the directory's failure was last logged (at most once a day per directory). */
  readonly reportedAt?: Date | undefined;
}

/** Whether to ask the CA about `certId` now, given what the row keeps. */
export function dueToAsk(kept: AriRecord | undefined, certId: string, now: Date): boolean {
  return kept === undefined || kept.certId !== certId || kept.nextAskAt.getTime() <= now.getTime();
}

/** The record after an answer (or a failure) of the CA; undefined when nothing was asked. */
export function ariRecordOf(
  answer: AriAnswer,
  kept: AriRecord | undefined,
  now: Date,
): AriRecord | undefined {
  if (answer.kind !== "window" && answer.kind !== "failed") return undefined;
  const same = kept?.certId === answer.certId ? kept : undefined;
  if (answer.kind === "window") {
    return {
      certId: answer.certId,
      directoryUrl: answer.directoryUrl,
      start: answer.window.start,
      end: answer.window.end,
      explanationUrl: answer.window.explanationUrl,
      askedAt: now,
      nextAskAt: answer.nextAskAt,
      ...(same?.reportedAt ? { reportedAt: same.reportedAt } : {}),
    };
  }
  return {
    certId: answer.certId,
    directoryUrl: answer.directoryUrl,
    ...(same?.start && same.end
      ? { start: same.start, end: same.end, explanationUrl: same.explanationUrl }
      : {}),
    askedAt: now,
    nextAskAt: answer.nextAskAt,
    problem: answer.failure.detail,
    ...(same?.reportedAt ? { reportedAt: same.reportedAt } : {}),
  };
}

/**
 * Whether the CA's suggested window has started: then the certificate is renewed now (RFC 9773's
 * chosen time at fraction 0, core/ari/window.ts).
 */
export function windowStarted(ari: AriRecord | undefined, now: Date): boolean {
  if (!ari?.start || !ari.end) return false;
  return decideAri({ start: ari.start, end: ari.end }, { now, fraction: 0 }).renew;
}

/** Whether a directory's failure may be logged again: never logged, or a day ago or more. */
export function mayReport(lastReported: Date | undefined, now: Date): boolean {
  return lastReported === undefined || now.getTime() - lastReported.getTime() >= DAY_MS;
}

/** `2026-12-01..2026-12-03` (UTC days); with `(renew now)` once it has started. */
export function ariWindowText(ari: AriRecord | undefined, now: Date): string | undefined {
  if (!ari?.start || !ari.end) return undefined;
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const started = windowStarted(ari, now) ? " (renew now)" : "";
  return `ARI window ${day(ari.start)}..${day(ari.end)}${started}`;
}

/** The CertID and issuer of a read certificate, for ARI; undefined when it has no CertID. */
export function ariQuestionOf(
  certificate: { readonly certId?: string | undefined; readonly issuer: string } | undefined,
): AriQuestion | undefined {
  return certificate?.certId === undefined
    ? undefined
    : { certId: certificate.certId, issuer: certificate.issuer };
}
