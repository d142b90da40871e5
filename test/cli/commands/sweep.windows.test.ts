import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { palette } from "../../../cli/output/color.js";
import { renderSweep } from "../../../cli/output/sweepReport.js";
import {
  type CertificateResult,
  countOutcomes,
  type SweepSummary,
} from "../../../shared/core/renewal/summary.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import { type Simulator, startSimulator } from "../../../sim/index.js";
import { cliAgainst, inDays } from "../../support/cli.js";
import { ensureBuilt } from "../../support/cliBuild.js";

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

describe("certsched sweep and renew with a calendar declared in the settings", () => {
  let sim: Simulator | undefined;
  beforeAll(() => ensureBuilt(), 120_000);
  afterEach(() => sim?.close());

  const now = Date.now();
  const env = {
    CERTSCHED_RENEWAL_WINDOWS: JSON.stringify([
      { start: "0 9 * * *", duration: "7h", timeZone: "Europe/Berlin" },
    ]),
    CERTSCHED_RENEWAL_FREEZES: JSON.stringify([
      {
        from: new Date(now - DAY_MS).toISOString(),
        to: new Date(now + 2 * DAY_MS).toISOString(),
        reason: "release week",
      },
    ]),
    CERTSCHED_CERTIFICATE_POLICY: JSON.stringify([
      { certificates: ["legacy-*"], policy: "disabled" },
    ]),
  };
  const start = () =>
    startSimulator({
      certificates: [
        // Can wait for the first opening after the freeze.
        { certificateName: "patient", expiryDate: inDays(15), rootDomain: "contoso.com" },
        // Cannot: renewed now, in the freeze, saying why.
        { certificateName: "urgent", expiryDate: inDays(1), rootDomain: "contoso.com" },
        { certificateName: "legacy-api", expiryDate: inDays(5), rootDomain: "contoso.com" },
      ],
    });

  it("sweeps: waiting and disabled counted, not failures; the urgent one renewed with its reason", async () => {
    sim = await start();
    const result = await cliAgainst(sim, ["sweep", "--no-ledger"], { env });
    expect(result.stderr).not.toContain("configuration");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("1 renewal-scheduled, 1 waiting for their window, 1 disabled");
    expect(result.stdout).toContain("waiting (frozen)");
    expect(result.stdout).toMatch(/urgent\s.*renewal-scheduled \(outside window\)/);
    expect(result.stdout).toContain("renewed in a freeze (release week)");
    expect(sim.renewCallsFor("urgent")).toBe(1);
    expect(sim.renewCallsFor("patient")).toBe(0);
    expect(sim.renewCallsFor("legacy-api")).toBe(0);
  });

  it("renews by name in a freeze; refuses a disabled certificate (exit 1) unless --force", async () => {
    sim = await start();
    const patient = await cliAgainst(sim, ["renew", "patient"], { env });
    expect(patient.code).toBe(0);
    expect(sim.renewCallsFor("patient")).toBe(1);

    const refused = await cliAgainst(sim, ["renew", "legacy-api"], { env });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      "Renewal of legacy-api not sent, disabled by its certificate policy (CERTSCHED_CERTIFICATE_POLICY[0])",
    );
    expect(refused.stderr).toContain("certsched renew legacy-api --force");
    expect(sim.renewCallsFor("legacy-api")).toBe(0);

    const forced = await cliAgainst(sim, ["renew", "legacy-api", "--force"], { env });
    expect(forced.code).toBe(0);
    expect(forced.stderr).toContain("past its disabled certificate policy");
    expect(sim.renewCallsFor("legacy-api")).toBe(1);
  });
});
