import { describe, expect, it } from "vitest";
import type { AriRecord } from "../../../../shared/core/ari/ariRecord.js";
import { ariLine, ariPart, safeExplanationUrl } from "../../../../shared/core/ari/ariView.js";

const NOW = new Date("2026-12-01T00:00:00.000Z");
const ari: AriRecord = {
  certId: "a.b",
  directoryUrl: "https://ca.example/dir",
  start: new Date("2026-12-01T00:00:00.000Z"),
  end: new Date("2026-12-03T00:00:00.000Z"),
  explanationUrl: "https://ca.example/why",
  askedAt: NOW,
  nextAskAt: NOW,
};

describe("safeExplanationUrl", () => {
  it("keeps http and https only", () => {
    expect(safeExplanationUrl("https://ca.example/why")).toBe("https://ca.example/why");
    expect(safeExplanationUrl("http://ca.example/")).toBe("http://ca.example/");
    for (const bad of [
      "javascript:alert(1)",
      "data:text/html,x",
      "ftp://x/",
      "not a url",
      "",
      undefined,
    ]) {
      expect(safeExplanationUrl(bad)).toBeNull();
    }
  });
});

describe("ariPart and ariLine", () => {
  it("renew now from the window's start, with the explanation", () => {
    const { ari: view } = ariPart({ ari }, NOW);
    expect(view).toEqual({
      start: "2026-12-01T00:00:00.000Z",
      end: "2026-12-03T00:00:00.000Z",
      explanationUrl: "https://ca.example/why",
      renewNow: true,
      text: "ARI window 2026-12-01..2026-12-03 (renew now)",
      problem: null,
    });
    expect(ariLine(view as NonNullable<typeof view>)).toBe(
      "ARI window 2026-12-01..2026-12-03 (renew now), explained at https://ca.example/why",
    );
  });

  it("a millisecond before the start: not yet; a failing CA is said beside the last window", () => {
    const before = new Date(NOW.getTime() - 1);
    const { ari: view } = ariPart(
      { ari: { ...ari, explanationUrl: undefined, problem: "timed out" } },
      before,
    );
    expect(view?.renewNow).toBe(false);
    expect(ariLine(view as NonNullable<typeof view>)).toBe(
      "ARI window 2026-12-01..2026-12-03 (the CA's last answer failed: timed out)",
    );
  });

  it("no window known: null", () => {
    expect(ariPart(undefined, NOW)).toEqual({ ari: null });
    expect(ariPart({ ari: { ...ari, start: undefined, end: undefined } }, NOW)).toEqual({
      ari: null,
    });
  });
});
