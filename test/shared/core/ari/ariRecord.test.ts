import { describe, expect, it } from "vitest";
import {
  type AriRecord,
  ariQuestionOf,
  ariRecordOf,
  ariWindowText,
  dueToAsk,
  mayReport,
  windowStarted,
} from "../../../../shared/core/ari/ariRecord.js";
import { DAY_MS } from "../../../../shared/lib/time.js";

const NOW = new Date("2026-12-02T12:00:00.000Z");
const kept: AriRecord = {
  certId: "aaa.bbb",
  directoryUrl: "https://ca.example/dir",
  start: new Date("2026-12-01T00:00:00Z"),
  end: new Date("2026-12-03T00:00:00Z"),
  explanationUrl: "https://ca.example/why",
  askedAt: new Date("2026-12-02T06:00:00Z"),
  nextAskAt: NOW,
  reportedAt: new Date("2026-12-01T12:00:00Z"),
};
const failed = {
  kind: "failed",
  certId: "aaa.bbb",
  directoryUrl: "https://ca.example/dir",
  failure: { reason: "unreachable", detail: "renewalInfo: timed out" },
  nextAskAt: new Date(NOW.getTime() + 3_600_000),
  cached: false,
} as const;

describe("dueToAsk", () => {
  it("asks at nextAskAt, not a millisecond before; at once for a new CertID or none kept", () => {
    expect(dueToAsk(kept, "aaa.bbb", new Date(NOW.getTime() - 1))).toBe(false);
    expect(dueToAsk(kept, "aaa.bbb", NOW)).toBe(true);
    expect(dueToAsk(kept, "ccc.ddd", new Date(NOW.getTime() - DAY_MS))).toBe(true);
    expect(dueToAsk(undefined, "aaa.bbb", NOW)).toBe(true);
  });
});

describe("ariRecordOf", () => {
  it("keeps the window and the last report through a failure of the same certificate", () => {
    expect(ariRecordOf(failed, kept, NOW)).toEqual({
      certId: "aaa.bbb",
      directoryUrl: "https://ca.example/dir",
      start: kept.start,
      end: kept.end,
      explanationUrl: kept.explanationUrl,
      askedAt: NOW,
      nextAskAt: failed.nextAskAt,
      problem: "renewalInfo: timed out",
      reportedAt: kept.reportedAt,
    });
  });

  it("forgets the window of another certificate; an answer clears the problem", () => {
    const other = ariRecordOf({ ...failed, certId: "new.one" }, kept, NOW);
    expect(other?.start).toBeUndefined();
    expect(other?.reportedAt).toBeUndefined();
    const answered = ariRecordOf(
      {
        kind: "window",
        certId: "aaa.bbb",
        directoryUrl: "https://ca.example/dir",
        window: {
          start: kept.end as Date,
          end: new Date("2026-12-04T00:00:00Z"),
          explanationUrl: undefined,
        },
        nextAskAt: new Date(NOW.getTime() + 6 * 3_600_000),
        cached: false,
      },
      { ...kept, problem: "down" },
      NOW,
    );
    expect(answered?.problem).toBeUndefined();
    expect(answered?.start).toEqual(kept.end);
  });

  it("records nothing when nothing was asked", () => {
    expect(ariRecordOf({ kind: "not-configured" }, kept, NOW)).toBeUndefined();
    expect(
      ariRecordOf({ kind: "no-cert-id", reason: "no-authority-key-id" }, kept, NOW),
    ).toBeUndefined();
  });
});

describe("windowStarted and ariWindowText", () => {
  it("has started at exactly its start, not a millisecond before", () => {
    const start = kept.start as Date;
    expect(windowStarted(kept, start)).toBe(true);
    expect(windowStarted(kept, new Date(start.getTime() - 1))).toBe(false);
    expect(windowStarted({ ...kept, start: undefined, end: undefined }, NOW)).toBe(false);
    expect(windowStarted(undefined, NOW)).toBe(false);
  });

  it("reads as ARI window <start>..<end>, with (renew now) once started", () => {
    expect(ariWindowText(kept, NOW)).toBe("ARI window 2026-12-01..2026-12-03 (renew now)");
    expect(ariWindowText(kept, new Date("2026-11-30T00:00:00Z"))).toBe(
      "ARI window 2026-12-01..2026-12-03",
    );
    expect(ariWindowText({ ...kept, start: undefined }, NOW)).toBeUndefined();
  });
});

describe("mayReport", () => {
  it("reports again a whole day after the last report, not a millisecond sooner", () => {
    const last = new Date(NOW.getTime() - DAY_MS);
    expect(mayReport(last, NOW)).toBe(true);
    expect(mayReport(new Date(last.getTime() + 1), NOW)).toBe(false);
    expect(mayReport(undefined, NOW)).toBe(true);
  });
});

describe("ariQuestionOf", () => {
  it("asks only with a CertID", () => {
    expect(ariQuestionOf({ certId: "a.b", issuer: "O=X" })).toEqual({
      certId: "a.b",
      issuer: "O=X",
    });
    expect(ariQuestionOf({ issuer: "O=X" })).toBeUndefined();
    expect(ariQuestionOf(undefined)).toBeUndefined();
  });
});
