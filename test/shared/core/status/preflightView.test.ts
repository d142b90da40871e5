import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PreflightRecord } from "../../../../shared/core/ports/inventory.js";
import { PREFLIGHT_ADVICE } from "../../../../shared/core/preflight/advice.js";
import {
  FAIL_REASONS,
  MAX_CHECK_DETAIL,
  type PreflightCheck,
} from "../../../../shared/core/preflight/preflight.js";
import { certificateStatus } from "../../../../shared/core/status/certificateStatus.js";
import {
  preflightFilterOf,
  preflightView,
  preflightWord,
  statusLabel,
} from "../../../../shared/core/status/preflightView.js";
import { propertyRuns } from "../../../support/fastCheck.js";

/* The last preflight as every status view shows it, and the word beside the status. */

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

const NOW = new Date("2026-11-23T09:30:00.000Z");
const H = 3_600_000;
const DAY = 24 * H;

function record(checks: PreflightCheck[], at = new Date(NOW.getTime() - H)): PreflightRecord {
  const status = checks.some((c) => c.status === "fail")
    ? "will-fail"
    : checks.some((c) => c.status === "unknown")
      ? "unknown"
      : "ready";
  return { at, status, rootDomain: "contoso.com", checks };
}

const caaFails: PreflightCheck = {
  check: "caa",
  status: "fail",
  reason: "caa-forbids",
  detail: 'contoso.com: 0 issue "digicert.com" allows none of letsencrypt.org',
};
const delegationFails: PreflightCheck = {
  check: "dns-delegation",
  status: "fail",
  reason: "dns-not-delegated",
  detail: "NS ns1.other.example vs ns1-01.azure-dns.com",
};
const accessPasses: PreflightCheck = { check: "access", status: "pass", detail: "ARM answered" };
const accessUnknown: PreflightCheck = {
  check: "access",
  status: "unknown",
  detail: "ARM did not answer within 5 s",
};

describe("preflightView", () => {
  it("is null for a certificate never checked", () => {
    expect(preflightView(undefined, NOW)).toBeNull();
  });

  it("a will-fail preflight: its reasons in check order, each failed check with its advice", () => {
    const view = preflightView(record([accessPasses, delegationFails, caaFails]), NOW);
    expect(view).toEqual({
      status: "will-fail",
      at: "2026-11-23T08:30:00.000Z",
      rootDomain: "contoso.com",
      reasons: ["caa-forbids", "dns-not-delegated"],
      checks: [
        { ...caaFails, advice: PREFLIGHT_ADVICE["caa-forbids"] },
        { ...delegationFails, advice: PREFLIGHT_ADVICE["dns-not-delegated"] },
        { ...accessPasses, reason: null, advice: null },
      ],
      blocks: "caa-forbids",
    });
  });

  it("names what blocks the renewal only while the preflight is at most a day old", () => {
    const at = (ms: number) => new Date(NOW.getTime() - ms);
    expect(preflightView(record([caaFails], at(DAY)), NOW)?.blocks).toBe("caa-forbids");
    expect(preflightView(record([caaFails], at(DAY + 1)), NOW)?.blocks).toBeNull();
    // dns-not-delegated may clear on its own: it never holds a renewal.
    expect(preflightView(record([delegationFails]), NOW)?.blocks).toBeNull();
  });

  it("ready and unknown preflights carry no reasons and no advice", () => {
    const ready = preflightView(record([accessPasses]), NOW);
    expect(ready).toMatchObject({ status: "ready", reasons: [], blocks: null });
    const unknown = preflightView(record([accessUnknown]), NOW);
    expect(unknown).toMatchObject({ status: "unknown", reasons: [], blocks: null });
    expect(unknown?.checks).toEqual([{ ...accessUnknown, reason: null, advice: null }]);
  });

  it("a stored detail is input: redacted, control characters escaped, bounded again", () => {
    const hostile = `<script>alert(1)</script>\u001b]0;owned\u0007\nAuthorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijklmnop ${"x".repeat(400)}`;
    const view = preflightView(
      record([{ ...caaFails, detail: hostile }], new Date(NOW.getTime() - H)),
      NOW,
    );
    const detail = view?.checks[0]?.detail ?? "";
    expect(detail.length).toBeLessThanOrEqual(MAX_CHECK_DETAIL);
    expect(detail).not.toMatch(CONTROL);
    expect(detail).not.toContain("eyJhbGciOiJIUzI1NiJ9");
    // Not HTML-escaped here: each view escapes for its own medium.
    expect(detail.startsWith("<script>alert(1)</script>\\u{1b}]0;owned")).toBe(true);
  });

  it("any stored detail comes out one line of at most MAX_CHECK_DETAIL characters", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 1_000 }), (detail) => {
        const out = preflightView(record([{ ...caaFails, detail }]), NOW)?.checks[0]?.detail ?? "";
        expect(out.length).toBeLessThanOrEqual(MAX_CHECK_DETAIL);
        expect(out).not.toMatch(CONTROL);
      }),
      { numRuns: propertyRuns(300) },
    );
  });
});

describe("the words beside the status", () => {
  it("statusLabel leaves the word alone unless the preflight is will-fail", () => {
    expect(statusLabel("ok", null)).toBe("ok");
    expect(statusLabel("ok", preflightView(record([accessPasses]), NOW))).toBe("ok");
    expect(statusLabel("expiring", preflightView(record([accessUnknown]), NOW))).toBe("expiring");
    expect(statusLabel("ok", preflightView(record([caaFails]), NOW))).toBe(
      "ok · will fail (caa-forbids)",
    );
    expect(statusLabel("stuck", preflightView(record([delegationFails, caaFails]), NOW))).toBe(
      "stuck · will fail (caa-forbids, dns-not-delegated)",
    );
  });

  it("preflightWord is the column's text", () => {
    expect(preflightWord(null)).toBe("—");
    expect(preflightWord(preflightView(record([accessPasses]), NOW))).toBe("ready");
    expect(preflightWord(preflightView(record([accessUnknown]), NOW))).toBe("unknown");
    expect(preflightWord(preflightView(record([caaFails, accessUnknown]), NOW))).toBe(
      "will-fail (caa-forbids)",
    );
  });

  it("every reason has advice, and the filter value is the status or none", () => {
    for (const reason of FAIL_REASONS) expect(PREFLIGHT_ADVICE[reason]).toMatch(/\w/);
    expect(preflightFilterOf(null)).toBe("none");
    expect(preflightFilterOf({ status: "will-fail" })).toBe("will-fail");
  });
});

describe("certificateStatus with a preflight", () => {
  const inventory = {
    certificateName: "www",
    id: 7,
    source: "due-list" as const,
    rootDomain: "contoso.com",
    serviceExpiry: new Date(NOW.getTime() + 40 * DAY),
    firstSeen: new Date(NOW.getTime() - 30 * DAY),
    lastSeen: NOW,
  };
  const options = { now: NOW, graceMs: 2 * H, warnDays: 14 };

  it("keeps the status word and says will fail beside it", () => {
    const view = certificateStatus(
      { certificateName: "www", inventory: { ...inventory, lastPreflight: record([caaFails]) } },
      options,
    );
    expect(view.status).toBe("ok");
    expect(view.why).toBe("40 days left");
    expect(view.label).toBe("ok · will fail (caa-forbids)");
    expect(view.preflight?.reasons).toEqual(["caa-forbids"]);
  });

  it("no preflight, or a ready or unknown one: the label is the word", () => {
    for (const lastPreflight of [undefined, record([accessPasses]), record([accessUnknown])]) {
      const view = certificateStatus(
        { certificateName: "www", inventory: { ...inventory, lastPreflight } },
        options,
      );
      expect(view.label).toBe("ok");
      expect(view.preflight === null).toBe(lastPreflight === undefined);
    }
  });
});
