import { escapeControl } from "../../lib/text/escapeControl.js";
import { shownName } from "../../lib/text/names.js";
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from "../../lib/time.js";
import { instantText } from "../verification/served.js";
import { namesMatch } from "./dnsName.js";
import type {
  Issuance,
  IssuanceVerdict,
  KnownCertificate,
  SeenIssuance,
  SentRequest,
} from "./issuance.js";

/**
 * Tells certsched's issuances from anyone else's. Expected: its TBS or public-key hash is that
 * of a certificate certsched has read (never the certificate hash, serial or fingerprint: a
 * precertificate and its certificate differ there, and the watcher may have logged either), or
 * it was issued in the completion window of a request certsched sent for one of its names and
 * that request landed. Pending: in the window of a request that has not landed yet, judged again
 * when the window ends. Unexpected: anything else.
 */

/** CAs backdate notBefore (Let's Encrypt by an hour): a window opens this long before its request. */
export const BACKDATING_MS = 2 * HOUR_MS;

export interface JudgeContext {
  readonly known: readonly KnownCertificate[];
  /** Oldest first (sentRequestsOf): the first request that explains an issuance is named. */
  readonly sent: readonly SentRequest[];
  readonly now: Date;
  /** How long after a request its certificate may be issued (CERTSCHED_CT_COMPLETION_WINDOW). */
  readonly completionWindowMs: number;
}

export function classify(issuance: Issuance, ctx: JudgeContext): IssuanceVerdict {
  return byHash(issuance, ctx.known) ?? byRequest(issuance, ctx);
}

/**
 * A pending verdict judged again: expected or still pending as the requests now say, and
 * unexpected only once its window has ended. An expected or unexpected verdict stays as it is.
 */
export function rejudge(seen: SeenIssuance, ctx: JudgeContext): IssuanceVerdict {
  const before = seen.verdict;
  if (before.kind !== "pending") return before;
  const verdict = classify(seen.issuance, ctx);
  // The request may be gone from what was read (history kept shorter, a row unreadable): the
  // window it opened still holds.
  if (verdict.kind === "unexpected" && ctx.now.getTime() < before.until.getTime()) return before;
  return verdict;
}

const lower = (hash: string | undefined) =>
  hash === undefined || hash === "" ? undefined : hash.toLowerCase();

/** The TBS hash first (the same certificate), then the public key (a renewal reusing its key). */
function byHash(
  issuance: Issuance,
  known: readonly KnownCertificate[],
): IssuanceVerdict | undefined {
  const tbs = lower(issuance.tbsSha256);
  const pubkey = lower(issuance.pubkeySha256);
  const sameTbs = tbs && known.find((k) => lower(k.tbsSha256) === tbs);
  if (sameTbs) return expectedBy("tbs", sameTbs);
  const samePubkey = pubkey && known.find((k) => lower(k.pubkeySha256) === pubkey);
  if (samePubkey) return expectedBy("public-key", samePubkey);
  return undefined;
}

const expectedBy = (because: "tbs" | "public-key", k: KnownCertificate): IssuanceVerdict => ({
  kind: "expected",
  because,
  certificateName: k.certificateName,
  where: k.where,
});

/** When a request's completion window ends. */
export const windowEnd = (s: SentRequest, completionWindowMs: number) =>
  new Date(s.sentAt.getTime() + completionWindowMs);

/** Whether the issuance's notBefore lies in the request's window, both ends included. */
export function inWindow(notBefore: Date, s: SentRequest, completionWindowMs: number): boolean {
  const at = notBefore.getTime();
  const sent = s.sentAt.getTime();
  return at >= sent - BACKDATING_MS && at <= sent + completionWindowMs;
}

function byRequest(issuance: Issuance, ctx: JudgeContext): IssuanceVerdict {
  const hashes = issuance.tbsSha256 || issuance.pubkeySha256;
  const notKnown = hashes
    ? "no certificate certsched has read has its public key"
    : "its public key could not be read to compare with the certificates certsched has read";
  const notBefore = issuance.notBefore;
  if (notBefore === undefined || Number.isNaN(notBefore.getTime())) {
    return unexpected(
      ctx,
      `${notKnown}, and its notBefore could not be read, so it cannot be placed in the completion window of a request certsched sent`,
    );
  }
  const window = ctx.completionWindowMs;
  const candidates = ctx.sent.filter(
    (s) => inWindow(notBefore, s, window) && s.names.some((n) => matchesAny(n, issuance.dnsNames)),
  );
  const landed = candidates.find((s) => s.landedAt !== undefined);
  if (landed) {
    const { certificateName, sentAt } = landed;
    return { kind: "expected", because: "request", certificateName, sentAt };
  }
  const open = candidates.filter((s) => ctx.now.getTime() < windowEnd(s, window).getTime());
  const latest = open.reduce<SentRequest | undefined>(
    (a, s) => (a === undefined || s.sentAt.getTime() > a.sentAt.getTime() ? s : a),
    undefined,
  );
  if (latest) {
    const { certificateName, sentAt } = latest;
    return { kind: "pending", certificateName, sentAt, until: windowEnd(latest, window) };
  }
  const last = candidates.at(-1);
  if (last) {
    return unexpected(
      ctx,
      `${notKnown}, and the ${last.kind} certsched sent for these names at ${instantText(last.sentAt)} (certificate "${escapeControl(shownName(last.certificateName))}") had not landed when its completion window ended at ${instantText(windowEnd(last, window))}`,
    );
  }
  return unexpected(
    ctx,
    `${notKnown}, and certsched sent no request for these names in the ${spanText(window)} before it was issued`,
  );
}

const matchesAny = (name: string, dnsNames: readonly string[]) =>
  dnsNames.some((d) => namesMatch(name, d));

const unexpected = (ctx: JudgeContext, why: string): IssuanceVerdict => ({
  kind: "unexpected",
  since: ctx.now,
  why,
});

/** "2 days", "36 hours", "90 minutes": the largest whole unit. */
export function spanText(ms: number): string {
  const units: [number, string][] = [
    [DAY_MS, "day"],
    [HOUR_MS, "hour"],
    [MINUTE_MS, "minute"],
    [SECOND_MS, "second"],
  ];
  for (const [size, unit] of units) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${unit}${ms === size ? "" : "s"}`;
  }
  return `${ms} milliseconds`;
}
