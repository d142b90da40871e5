import { describe, expect, it } from "vitest";
import { ariHtml } from "../../../../shared/edge/dashboard/ariCell.js";

const view = {
  start: "2026-12-01T00:00:00.000Z",
  end: "2026-12-03T00:00:00.000Z",
  explanationUrl: null,
  renewNow: false,
  text: "ARI window 2026-12-01..2026-12-03",
  problem: null,
};

describe("ariHtml", () => {
  it("nothing without a window", () => {
    expect(ariHtml(null)).toBe("");
  });

  it("the window's text, and the explanation as a link with its attribute escaped", () => {
    expect(ariHtml(view)).toBe('<span class="sub ari">ARI window 2026-12-01..2026-12-03</span>');
    expect(ariHtml({ ...view, explanationUrl: 'https://ca.example/"<x>&' })).toBe(
      '<span class="sub ari">ARI window 2026-12-01..2026-12-03 <a href="https://ca.example/&quot;&lt;x&gt;&amp;" rel="noopener noreferrer nofollow" target="_blank">why</a></span>',
    );
  });
});
