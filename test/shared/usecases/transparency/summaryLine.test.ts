import { describe, expect, it } from "vitest";
import { transparencySummaryLine } from "../../../../shared/usecases/transparency/summaryLine.js";
import type { TransparencyRun } from "../../../../shared/usecases/watchTransparency.js";
import { seenIssuance } from "../../../support/seenIssuances.js";

const run: TransparencyRun = {
  account: "contoso",
  watched: true,
  names: 3,
  requests: 4,
  newIssuances: 2,
  unexpected: [seenIssuance()],
  pending: 1,
  messages: 1,
  problems: [],
  failed: true,
};

describe("the watch's summary line", () => {
  it("counts what the run did and says when it needs attention", () => {
    expect(transparencySummaryLine(run)).toBe(
      'certsched ct summary: account "contoso": 3 names, 4 requests, 2 new issuances, 1 unexpected, 1 pending, 1 messages sent (needs attention)',
    );
    expect(transparencySummaryLine({ ...run, unexpected: [], failed: false })).not.toMatch(
      /attention/,
    );
  });

  it("names at most five problems, and why nothing was watched", () => {
    const problems = Array.from({ length: 7 }, (_, i) => `p${i}`);
    expect(transparencySummaryLine({ ...run, problems })).toContain(
      "; 7 problems: p0; p1; p2; p3; p4 (needs",
    );
    expect(transparencySummaryLine({ ...run, watched: false, problems: [] })).toBe(
      'certsched ct summary: account "contoso": not watched (CERTSCHED_CT_WATCH is off)',
    );
    expect(
      transparencySummaryLine({ ...run, watched: false, problems: ["needs storage"] }),
    ).toMatch(/not watched \(needs storage\)$/);
  });
});
