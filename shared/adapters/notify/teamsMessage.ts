import type { SweepReport } from "./sweepReport.js";

type CardElement = Record<string, unknown>;

/**
 * Teams renders markdown in a card's text, and the text carries what others chose: the service's
 * certificate names and words, a certificate's names and issuer. `[Renew now](https://evil.example)`
 * would be a link whose words they chose, in the operators' channel. A space after the bracket
 * breaks the link syntax; the words stay. (Slack's links are `<url|text>`, escaped there.)
 */
export const noMarkdownLinks = (text: string) => text.replaceAll("](", "] (");

function textBlock(text: string, style: Record<string, unknown> = {}): CardElement {
  return { type: "TextBlock", text: noMarkdownLinks(text), wrap: true, ...style };
}

/**
 * A Teams workflow message ("Post to a channel when a webhook request is received"): an
 * Adaptive Card 1.4 in the envelope the Power Automate trigger expects.
 */
export function teamsMessage(report: SweepReport): unknown {
  const body: CardElement[] = [
    textBlock(report.title, {
      size: "Medium",
      weight: "Bolder",
      color: report.failed ? "Attention" : "Good",
    }),
    {
      type: "FactSet",
      facts: report.counts.map((c) => ({
        title: noMarkdownLinks(c.label),
        value: noMarkdownLinks(String(c.value)),
      })),
    },
  ];
  if (report.attentionLines.length > 0) {
    body.push(textBlock("Certificates needing attention", { weight: "Bolder", spacing: "Medium" }));
    for (const line of report.attentionLines) body.push(textBlock(line, { spacing: "Small" }));
    if (report.omitted > 0) {
      body.push(textBlock(`…and ${report.omitted} more`, { spacing: "Small", isSubtle: true }));
    }
  }
  const outsideLines = report.outsideLines ?? [];
  if (outsideLines.length > 0) {
    body.push(textBlock("Renewed outside their windows", { weight: "Bolder", spacing: "Medium" }));
    for (const line of outsideLines) body.push(textBlock(line, { spacing: "Small" }));
  }
  if (report.heldLine) body.push(textBlock(report.heldLine, { spacing: "Medium", isSubtle: true }));
  if (report.problems.length > 0) {
    body.push(textBlock("Problems", { weight: "Bolder", spacing: "Medium" }));
    for (const problem of report.problems) body.push(textBlock(problem, { spacing: "Small" }));
  }
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          msteams: { width: "Full" },
          body,
        },
      },
    ],
  };
}
