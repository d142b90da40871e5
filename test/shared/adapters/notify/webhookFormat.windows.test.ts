import { describe, expect, it } from "vitest";
import { shouldNotify, webhookBody } from "../../../../shared/adapters/notify/notifier.js";
import { sweepReport } from "../../../../shared/adapters/notify/sweepReport.js";
import {
  type CertificateResult,
  countOutcomes,
  type SweepSummary,
} from "../../../../shared/core/renewal/summary.js";

/** The webhook messages of a sweep whose account declares renewal windows. */

const OUTSIDE_DETAIL =
  "renewed outside its renewal windows: it expires 2027-01-13T12:30:00.000Z, before the next opening (2027-01-12 09:00 CET (08:00 UTC)) plus the margin";

function result(overrides: Partial<CertificateResult>): CertificateResult {
  return {
    certificateName: "www",
    id: 7,
    target: "Cloud App Service",
    expiryDate: "2027-01-13T12:30:00.000Z",
    daysLeft: 3,
    outcome: "renewal-scheduled",
    reason: "NewRenewal",
    detail: "renewal scheduled",
    ...overrides,
  };
}

const urgent = result({
  certificateName: "urgent",
  detail: `${OUTSIDE_DETAIL}; renewal scheduled`,
  window: {
    state: "outside",
    because: "expiry",
    window: "CERTSCHED_RENEWAL_WINDOWS[0]",
    opensAt: "2027-01-12T08:00:00.000Z",
    opensAtLocal: "2027-01-12 09:00 CET",
    timeZone: "Europe/Berlin",
    mustRenewBy: "2027-01-10T12:30:00.000Z",
    detail: OUTSIDE_DETAIL,
  },
});
const patient = result({
  certificateName: "patient",
  outcome: "waiting",
  reason: "OutsideWindow",
  detail: "waiting for its renewal window: opens 2027-01-12 09:00 CET (08:00 UTC)",
  window: {
    state: "waiting",
    window: "CERTSCHED_RENEWAL_WINDOWS[0]",
    opensAt: "2027-01-12T08:00:00.000Z",
    opensAtLocal: "2027-01-12 09:00 CET",
    timeZone: "Europe/Berlin",
    detail: "waiting for its renewal window: opens 2027-01-12 09:00 CET (08:00 UTC)",
  },
});
const retired = result({
  certificateName: "retired",
  outcome: "disabled",
  reason: "PolicyDisabled",
  detail: "disabled by its certificate policy (CERTSCHED_CERTIFICATE_POLICY[0])",
  window: {
    state: "disabled",
    policy: "CERTSCHED_CERTIFICATE_POLICY[0]",
    detail: "disabled by its certificate policy (CERTSCHED_CERTIFICATE_POLICY[0])",
  },
});

function summaryOf(results: CertificateResult[]): SweepSummary {
  return {
    dryRun: false,
    startedAt: "2027-01-10T12:00:00.000Z",
    durationMs: 40,
    ledger: "table",
    results,
    rejected: [],
    counts: countOutcomes(results, 0),
    failed: false,
    problems: [],
  };
}

describe("webhook messages and the renewal calendar", () => {
  const summary = summaryOf([urgent, patient, retired]);

  it("says a renewal went outside its windows, with why; lists waiting ones briefly, not as failures", () => {
    const report = sweepReport(summary);
    expect(report.attention).toEqual([]);
    expect(report.outsideLines).toEqual([
      `urgent (Cloud App Service): 3 days left, ${OUTSIDE_DETAIL}`,
    ]);
    expect(report.heldLine).toBe(
      "Waiting for their window (not failures): patient (opens 2027-01-12 09:00 CET). Disabled by policy: retired.",
    );
    expect(report.counts).toEqual(
      expect.arrayContaining([
        { label: "Waiting for window", value: 1 },
        { label: "Disabled", value: 1 },
      ]),
    );
    expect(report.text).toContain(OUTSIDE_DETAIL);
  });

  it("carries the window words in every format", () => {
    const slack = JSON.parse(webhookBody(summary, "slack")) as { blocks: unknown[] };
    expect(JSON.stringify(slack.blocks)).toContain("Renewed outside their windows");
    expect(JSON.stringify(slack.blocks)).toContain(
      "Waiting for their window (not failures): patient",
    );
    const teams = webhookBody(summary, "teams");
    expect(teams).toContain("Renewed outside their windows");
    expect(teams).toContain(OUTSIDE_DETAIL);
    const json = JSON.parse(webhookBody(summary, "json")) as Record<string, unknown>;
    expect(json.renewedOutsideWindow).toEqual([
      expect.objectContaining({ certificateName: "urgent", window: urgent.window }),
    ]);
    expect(json.waiting).toEqual([
      expect.objectContaining({ certificateName: "patient", window: patient.window }),
    ]);
    expect(json.disabled).toEqual(["retired"]);
  });

  it("posts a good sweep that renewed outside its windows; not one that only waited", () => {
    expect(shouldNotify(summary, false)).toBe(true);
    expect(shouldNotify(summaryOf([patient, retired]), false)).toBe(false);
  });

  it("reads counts stored before the calendar (no waiting or disabled keys)", () => {
    const { waiting: _w, disabled: _d, ...old } = summaryOf([result({})]).counts;
    const report = sweepReport({
      ...summaryOf([result({})]),
      counts: old as SweepSummary["counts"],
    });
    expect(report.counts.map((c) => c.label)).not.toContain("Waiting for window");
    expect(report.heldLine).toBeUndefined();
  });
});
