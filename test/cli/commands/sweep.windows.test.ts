import { describe, expect, it } from "vitest";
import { palette } from "../../../cli/output/color.js";
import { renderSweep } from "../../../cli/output/sweepReport.js";
import {
  type CertificateResult,
  countOutcomes,
  type SweepSummary,
} from "../../../shared/core/renewal/summary.js";

/** `certsched sweep`'s report when the account declares renewal windows. */

const base = {
  target: "Cloud App Service",
  expiryDate: "2027-01-20T10:00:00.000Z",
  daysLeft: 9,
  id: 1,
};
const results: CertificateResult[] = [
  {
    ...base,
    certificateName: "api",
    outcome: "waiting",
    reason: "OutsideWindow",
    detail: "waiting for its renewal window: opens 2027-01-12 09:00 CET (08:00 UTC)",
    window: {
      state: "waiting",
      opensAtLocal: "2027-01-12 09:00 CET",
      detail: "waiting for its renewal window: opens 2027-01-12 09:00 CET (08:00 UTC)",
    },
  },
  {
    ...base,
    certificateName: "www",
    outcome: "waiting",
    reason: "Frozen",
    detail: "frozen until 2027-01-05 (release week)",
    window: {
      state: "waiting",
      frozen: { reason: "release week", until: "2027-01-05T23:00:00.000Z" },
      detail: "frozen until 2027-01-05 (release week)",
    },
  },
  {
    ...base,
    certificateName: "legacy",
    outcome: "disabled",
    reason: "PolicyDisabled",
    detail: "disabled by its certificate policy (CERTSCHED_CERTIFICATE_POLICY[0])",
    window: { state: "disabled", detail: "disabled by its certificate policy" },
  },
  {
    ...base,
    certificateName: "urgent",
    daysLeft: 2,
    outcome: "renewal-scheduled",
    reason: "NewRenewal",
    detail: "renewed outside its renewal windows: it expires first; renewal scheduled",
    window: { state: "outside", because: "expiry", detail: "renewed outside its renewal windows" },
  },
];

const summary: SweepSummary = {
  dryRun: false,
  startedAt: "2027-01-10T12:00:00.000Z",
  durationMs: 1,
  ledger: "memory",
  results,
  rejected: [],
  counts: countOutcomes(results, 0),
  failed: false,
  problems: [],
};

describe("certsched sweep and renewal windows", () => {
  const plain = palette({ isTTY: false, columns: undefined, write() {} }, {});
  const text = renderSweep(summary, plain, 200).join("\n");

  it("counts waiting and disabled certificates in words, not as failures", () => {
    expect(text).toContain(
      "4 due: 1 renewal-scheduled, 2 waiting for their window, 1 disabled. Ledger: in memory",
    );
    expect(text).not.toContain("The sweep failed");
  });

  it("shows when each waiting certificate's window opens, a freeze, and an outside renewal's reason", () => {
    expect(text).toMatch(/api .*waiting \(opens 2027-01-12 09:00 CET\)/);
    expect(text).toMatch(/www .*waiting \(frozen\)/);
    expect(text).toMatch(/urgent .*renewal-scheduled \(outside window\)/);
    expect(text).toContain("urgent renewal-scheduled (outside window):");
    expect(text).toContain("renewed outside its renewal windows: it expires first");
    // One line each for what the calendar holds.
    expect(text).toContain(
      "api waiting (opens 2027-01-12 09:00 CET): waiting for its renewal window: opens 2027-01-12 09:00 CET (08:00 UTC)",
    );
  });
});
