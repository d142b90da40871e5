import type { IssuanceStatus } from "../../shared/core/status/issuanceStatus.js";
import {
  unexpectedIssuanceLines,
  unexpectedIssuancesLine,
} from "../../shared/core/status/issuanceStatus.js";
import { issuanceView } from "../../shared/core/transparency/issuanceView.js";
import type { Palette } from "../output/color.js";
import { oneLine, wrapToWidth } from "../output/text.js";

/**
 * What `certsched status` says about the Certificate Transparency watch: a red line per account
 * with unexpected issuances nobody acknowledged (the first few named), `issuances` in --json,
 * and a warning when they could not be read.
 */

/** An account's part of the status, as far as its issuances go. */
export interface IssuancesRead {
  readonly account: string;
  /** Undefined without a store (storage only): nothing is said. */
  readonly issuances?: IssuanceStatus | undefined;
}

/**
 * The red line of each account with unexpected issuances nobody acknowledged, naming the first
 * few by their line ("" before them when there is any).
 */
export function issuanceLines(
  read: readonly IssuancesRead[],
  many: boolean,
  paint: Palette,
  width: number | undefined,
): string[] {
  const lines: string[] = [];
  for (const r of read) {
    const status = r.issuances;
    const headline = status && unexpectedIssuancesLine(status);
    if (!status || headline === undefined) continue;
    const who = many ? `${r.account}: ` : "";
    lines.push(paint.red(oneLine(`${who}${headline}`)));
    for (const line of unexpectedIssuanceLines(status)) {
      lines.push(...wrapToWidth(oneLine(line), width, "  ", "    "));
    }
  }
  return lines.length > 0 ? ["", ...lines] : [];
}

/** The --json part: every account's unexpected and pending issuances, each naming its account. */
export function issuancesJson(read: readonly IssuancesRead[], now: Date) {
  const of = (pick: (s: IssuanceStatus) => IssuanceStatus["unexpected"]) =>
    read.flatMap((r) => (r.issuances ? pick(r.issuances).map((s) => issuanceView(s, now)) : []));
  const problems = read.flatMap((r) => r.issuances?.problems ?? []);
  return {
    unexpected: of((s) => s.unexpected),
    pending: of((s) => s.pending),
    ...(problems.length > 0 ? { problems } : {}),
  };
}

/** Why issuances could not be read, one line each, named by account when several are read. */
export function issuanceNotes(read: readonly IssuancesRead[], many: boolean): string[] {
  return read.flatMap((r) =>
    (r.issuances?.problems ?? []).map((p) => (many ? `account ${r.account}: ${p}` : p)),
  );
}
