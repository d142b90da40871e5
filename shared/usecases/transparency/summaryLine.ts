import { shownName } from "../../lib/text/names.js";
import type { TransparencyRun } from "../watchTransparency.js";

/** The run in one log line: `certsched ct summary: account "a": 3 names, 4 requests, ...`. */
export function transparencySummaryLine(run: TransparencyRun): string {
  const head = `certsched ct summary: account "${shownName(run.account)}"`;
  if (!run.watched) {
    return `${head}: not watched${run.problems.length > 0 ? ` (${run.problems.join("; ")})` : " (CERTSCHED_CT_WATCH is off)"}`;
  }
  const parts = [
    `${run.names} names`,
    `${run.requests} requests`,
    `${run.newIssuances} new issuances`,
    `${run.unexpected.length} unexpected`,
    `${run.pending} pending`,
    `${run.messages} messages sent`,
  ];
  const problems =
    run.problems.length > 0
      ? `; ${run.problems.length} problems: ${run.problems.slice(0, 5).join("; ")}`
      : "";
  return `${head}: ${parts.join(", ")}${problems}${run.failed ? " (needs attention)" : ""}`;
}
