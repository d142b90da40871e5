import type { SweepReport } from "./sweepReport.js";

/** Slack's limits: header text 150 characters, section text 3,000. */
const MAX_HEADER = 150;
const MAX_SECTION = 3000;
/** The fallback `text` shows in notifications; Slack truncates long ones anyway. */
const MAX_FALLBACK = 3000;

/** Slack mrkdwn treats &, < and > as control characters. */
function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function section(text: string): unknown {
  const clipped = text.length > MAX_SECTION ? `${text.slice(0, MAX_SECTION - 1)}…` : text;
  return { type: "section", text: { type: "mrkdwn", text: clipped } };
}

/**
 * Lines under a heading, as many as fit in one section; the rest are counted, so the section
 * never ends mid-line.
 */
function listSection(heading: string, lines: readonly string[], alreadyOmitted: number): unknown {
  const reserve = 40; // room for the "…and N more" line
  let text = heading;
  let listed = 0;
  for (const line of lines) {
    const next = `${text}\n• ${escapeMrkdwn(line)}`;
    if (next.length > MAX_SECTION - reserve) break;
    text = next;
    listed += 1;
  }
  const omitted = lines.length - listed + alreadyOmitted;
  return section(omitted > 0 ? `${text}\n…and ${omitted} more` : text);
}

/** A Slack incoming-webhook message: `text` is the notification fallback, `blocks` the body. */
export function slackMessage(report: SweepReport): unknown {
  const blocks: unknown[] = [
    { type: "header", text: { type: "plain_text", text: report.title.slice(0, MAX_HEADER) } },
    // Facts may carry names the service chose (a certificate, a domain): escaped like the lines.
    section(
      report.counts
        .map((c) => `*${escapeMrkdwn(c.label)}:* ${escapeMrkdwn(String(c.value))}`)
        .join("   "),
    ),
  ];
  if (report.attentionLines.length > 0) {
    blocks.push(
      listSection("*Certificates needing attention*", report.attentionLines, report.omitted),
    );
  }
  const outsideLines = report.outsideLines ?? [];
  if (outsideLines.length > 0) {
    const more = (report.outside?.length ?? 0) - outsideLines.length;
    blocks.push(listSection("*Renewed outside their windows*", outsideLines, more));
  }
  if (report.heldLine) blocks.push(section(escapeMrkdwn(report.heldLine)));
  if (report.problems.length > 0) blocks.push(listSection("*Problems*", report.problems, 0));
  return { text: escapeMrkdwn(report.text).slice(0, MAX_FALLBACK), blocks };
}
