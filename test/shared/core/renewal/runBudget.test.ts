import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import {
  bookkeepingEndMs,
  bookkeepingReserveMs,
  renewalStopMs,
} from "../../../../shared/core/renewal/runBudget.js";

const MIN = 60_000;
const BASE = {
  CERTSCHED_BASE_URL: "https://certs.example.com",
  CERTSCHED_TENANT_ID: "tenant-1",
  CERTSCHED_CLIENT_ID: "client-1",
  CERTSCHED_CLIENT_SECRET: "client-secret-value-1",
};

describe("the run budget", () => {
  it("with default settings and 20,000 certificates: renewals stop at 478 s, bookkeeping ends at 588 s", () => {
    const s = loadSettings(BASE);
    const budget = {
      functionTimeoutMs: s.functionTimeoutMs,
      sweepDeadlineMs: s.sweepDeadlineMs,
      drainMs: s.httpTimeoutMs,
    };
    expect(bookkeepingReserveMs(20_000, budget.functionTimeoutMs)).toBe(80_000);
    expect(bookkeepingEndMs(budget.functionTimeoutMs)).toBe(588_000);
    // 588 - 80 - 30 = 478 s, under the 9-min sweep deadline.
    expect(renewalStopMs(budget, 20_000)).toBe(478_000);
    // Few certificates: the 5 % floor (30 s); the sweep deadline (540 s) is not what stops them.
    expect(renewalStopMs(budget, 100)).toBe(588_000 - 30_000 - 30_000);
    // At the floor's edge: 7,500 rows x 4 ms = 30 s exactly; one more row, 4 ms more.
    expect(bookkeepingReserveMs(7_500, 10 * MIN)).toBe(30_000);
    expect(bookkeepingReserveMs(7_501, 10 * MIN)).toBe(30_004);
  });

  it("never stops later than CERTSCHED_SWEEP_DEADLINE, and never before the start", () => {
    expect(
      renewalStopMs({ functionTimeoutMs: 60 * MIN, sweepDeadlineMs: 9 * MIN, drainMs: 30_000 }, 0),
    ).toBe(9 * MIN);
    expect(
      renewalStopMs({ functionTimeoutMs: 10_000, sweepDeadlineMs: 9 * MIN, drainMs: 30_000 }, 0),
    ).toBe(0);
  });

  it("leaves the reserve and the drain inside the timeout, for any numbers", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000, max: 86_400_000 }),
        fc.integer({ min: 1_000, max: 86_400_000 }),
        fc.integer({ min: 0, max: 600_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (functionTimeoutMs, sweepDeadlineMs, drainMs, rows) => {
          const budget = { functionTimeoutMs, sweepDeadlineMs, drainMs };
          const stop = renewalStopMs(budget, rows);
          const end = bookkeepingEndMs(functionTimeoutMs);
          const reserve = bookkeepingReserveMs(rows, functionTimeoutMs);
          expect(stop).toBeGreaterThanOrEqual(0);
          expect(stop).toBeLessThanOrEqual(sweepDeadlineMs);
          expect(end).toBeLessThan(functionTimeoutMs);
          // Renewals that start may end and still leave the reserve, unless none may start.
          if (stop > 0) expect(stop + drainMs + reserve).toBeLessThanOrEqual(end);
          // More certificates never leave the renewals more time.
          expect(renewalStopMs(budget, rows + 1_000)).toBeLessThanOrEqual(stop);
        },
      ),
    );
  });

  it("CERTSCHED_FUNCTION_TIMEOUT's default is host.json's functionTimeout", () => {
    const host = JSON.parse(readFileSync("host.json", "utf8")) as { functionTimeout: string };
    const [h = 0, m = 0, s = 0] = host.functionTimeout.split(":").map(Number);
    expect(loadSettings(BASE).functionTimeoutMs).toBe(((h * 60 + m) * 60 + s) * 1000);
    expect(loadSettings({ ...BASE, CERTSCHED_FUNCTION_TIMEOUT: "30s" }).functionTimeoutMs).toBe(
      30_000,
    );
    expect(() => loadSettings({ ...BASE, CERTSCHED_FUNCTION_TIMEOUT: "0s" })).toThrow(
      /FUNCTION_TIMEOUT/,
    );
  });
});
