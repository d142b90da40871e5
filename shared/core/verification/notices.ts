import type { InventoryRecord, VerificationRecord } from "../ports/inventory.js";
import type { VerificationNotice } from "../ports/notifier.js";
import {
  type InventoryResult,
  type InventoryVerification,
  needsPerson,
  type StatusChange,
} from "./inventoryResult.js";

/**
 * The notices of a verification run: one per certificate that changed into a state
 * that needs a person, and one per certificate back to `ok` from such a state. A status that
 * stays bad is not repeated: the alert and the failed timer run keep saying it.
 */

/** The inventory as it was before the run: it tells a crossing within one status. */
export interface BeforeRun {
  readonly records: readonly InventoryRecord[];
  /** CERTSCHED_VERIFY_UNREACHABLE_AFTER, ms. */
  readonly unreachableAfterMs: number;
}

type Who = { readonly certificateName?: string | undefined; readonly domain: string };

const same = (a: Who, b: Who) => a.certificateName === b.certificateName && a.domain === b.domain;
const keyOf = (w: Who) => `${w.certificateName ?? ""}\u0000${w.domain}`;

/** The stored verification of a certificate (by name) or of a watched endpoint (by domain). */
function previous(before: BeforeRun | undefined, who: Who): VerificationRecord | undefined {
  const record = before?.records.find((r) =>
    who.certificateName !== undefined
      ? r.certificateName === who.certificateName
      : r.lastVerification?.domain === who.domain,
  );
  return record?.lastVerification;
}

/** Whether the stored verification needed a person, as of when it was made. */
function neededPerson(v: VerificationRecord, unreachableAfterMs: number): boolean {
  const pastGrace =
    v.unreachableSince !== undefined &&
    v.at.getTime() - v.unreachableSince.getTime() >= unreachableAfterMs;
  return needsPerson({ status: v.status, critical: v.critical, pastGrace });
}

function fromChange(
  change: StatusChange,
  result: InventoryResult | undefined,
  before: BeforeRun | undefined,
): VerificationNotice | undefined {
  const now = { status: change.to, critical: change.critical, pastGrace: result?.pastGrace };
  const base = {
    certificateName: change.certificateName,
    domain: change.domain,
    from: change.from,
    to: change.to,
    critical: change.critical,
    pastGrace: result?.pastGrace === true,
    result,
  };
  if (needsPerson(now)) return { kind: "bad", ...base };
  if (change.to !== "ok" || change.from === undefined) return undefined;
  // Back to ok: only from a state that needed a person (the stored one says whether a
  // critical or past-grace flag made it so; without it, only the always-bad statuses count).
  const stored = previous(before, change);
  const was =
    stored !== undefined && stored.status === change.from && before !== undefined
      ? neededPerson(stored, before.unreachableAfterMs)
      : needsPerson({ status: change.from });
  return was ? { kind: "recovered", ...base } : undefined;
}

/**
 * The notices of a run. `changes` says which statuses changed; the inventory as it was before
 * the run adds the crossings within one status that `changes` cannot show: `expiring` turning
 * critical, `unreachable` passing its grace.
 */
export function verificationNotices(
  verification: InventoryVerification,
  before?: BeforeRun,
): VerificationNotice[] {
  const notices: VerificationNotice[] = [];
  const seen = new Set<string>();
  for (const change of verification.changes) {
    // A domain several certificates share has one result, under the first one's name.
    const result =
      verification.results.find((r) => same(r, change)) ??
      verification.results.find((r) => r.domain === change.domain);
    const notice = fromChange(change, result, before);
    if (notice && !seen.has(keyOf(notice))) {
      seen.add(keyOf(notice));
      notices.push(notice);
    }
  }
  if (!before) return notices;
  for (const result of verification.results) {
    if (seen.has(keyOf(result)) || !needsPerson(result)) continue;
    const stored = previous(before, result);
    if (stored?.status !== result.status || neededPerson(stored, before.unreachableAfterMs)) {
      continue; // a change (handled above), never verified (a change too), or already bad
    }
    seen.add(keyOf(result));
    notices.push({
      kind: "bad",
      certificateName: result.certificateName,
      domain: result.domain,
      from: stored.status,
      to: result.status,
      critical: result.critical === true,
      pastGrace: result.pastGrace === true,
      result,
    });
  }
  return notices;
}
