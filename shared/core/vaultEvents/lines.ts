import { boundDetail } from "../../lib/text/boundDetail.js";
import type { SkipReason, VaultEvent } from "./vaultEvent.js";

/**
 * The log lines of Key Vault events: one per event, an alert line the infra's alert rule
 * matches (`certsched vault alert:`), and one line counting the skipped events past
 * MAX_SKIP_LINES. Every part may come from the event: each line is escaped and bounded whole.
 */

/** The longest line, in characters, the ellipsis included. */
export const MAX_LINE = 1_000;

/** Skipped events told by a line of their own, per delivery; the rest are counted. */
export const MAX_SKIP_LINES = 100;

/** `<kind> <vault>/<certificate> version <v>`: which certificate event a line is about. */
export const eventSubject = (e: VaultEvent) =>
  `${e.kind} ${e.vaultName}/${e.certificateName} version ${e.version}`;

/** `certsched vault event <id> (<kind> <vault>/<certificate> version <v>): <outcome>: <detail>`. */
export function eventLine(
  event: VaultEvent | undefined,
  id: string | undefined,
  outcome: string,
  detail: string,
): string {
  const about = event === undefined ? "" : ` (${eventSubject(event)})`;
  return boundDetail(
    `certsched vault event ${id ?? event?.id ?? "?"}${about}: ${outcome}: ${detail}`,
    MAX_LINE,
  );
}

/** `certsched vault alert: <kind> <vault>/<certificate> version <v> of account "<account>": <detail>`. */
export function alertLine(account: string, event: VaultEvent, detail: string): string {
  return boundDetail(
    `certsched vault alert: ${eventSubject(event)} of account "${account}": ${detail}`,
    MAX_LINE,
  );
}

/** The order reasons are counted in. */
const REASONS: readonly SkipReason[] = [
  "malformed",
  "unknown-type",
  "not-watched",
  "no-such-version",
  "older-version",
  "duplicate",
];

/** 9900 -> "9,900". */
export const countText = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/**
 * `certsched vault events: 9,900 more skipped without a line of their own (malformed 9,000,
 * not-watched 900)`: the skipped events past MAX_SKIP_LINES, by reason (none: zero left out).
 */
export function skippedSummary(counts: ReadonlyMap<SkipReason, number>): string {
  const parts = REASONS.flatMap((r) => {
    const n = counts.get(r) ?? 0;
    return n > 0 ? [{ r, n }] : [];
  });
  const total = parts.reduce((sum, p) => sum + p.n, 0);
  const byReason = parts.map((p) => `${p.r} ${countText(p.n)}`).join(", ");
  return `certsched vault events: ${countText(total)} more skipped without a line of their own${byReason ? ` (${byReason})` : ""}`;
}
