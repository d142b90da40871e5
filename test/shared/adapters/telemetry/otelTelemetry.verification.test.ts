import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { INSTRUMENTS } from "../../../../shared/adapters/telemetry/otelTelemetry.js";
import type {
  InventoryResult,
  InventoryVerification,
} from "../../../../shared/core/verification/inventoryResult.js";
import { fakeClock } from "../../../support/clock.js";
import { type InMemoryTelemetry, inMemoryTelemetry, points } from "../../../support/telemetry.js";

const DAY = 86_400_000;

function served(name: string, notAfter: string, status: InventoryResult["status"] = "ok") {
  return {
    domain: `${name}.contoso.com`,
    certificateName: name,
    source: "tls",
    status,
    servedNotAfter: notAfter,
    daysLeft: 0,
    detail: "",
  } as InventoryResult;
}

function run(results: InventoryResult[]): InventoryVerification {
  return { at: new Date(), results, counts: {}, failed: false, problems: [], changes: [] };
}

const byCertificate = (rows: Array<Record<string, unknown>>) =>
  Object.fromEntries(rows.map((r) => [r.certificate, r.value]));

describe("verification telemetry", () => {
  const clock = fakeClock("2026-03-01T12:00:00.000Z");
  let otel: InMemoryTelemetry;

  beforeEach(() => {
    clock.set(new Date("2026-03-01T12:00:00.000Z"));
    otel = inMemoryTelemetry(clock.now);
  });
  afterEach(async () => {
    await otel.close();
  });

  it("gauges days left as served, rounded down, as of when the gauge is read", async () => {
    otel.telemetry.recordVerification(
      run([
        // 10 days and 1 ms left: 10; exactly 3 days: 3; 1 ms short of a day: 0; expired an hour ago: -1.
        served("www", new Date(clock.now().getTime() + 10 * DAY + 1).toISOString()),
        served("shop", new Date(clock.now().getTime() + 3 * DAY).toISOString()),
        served("blog", new Date(clock.now().getTime() + DAY - 1).toISOString(), "expiring"),
        served("old", new Date(clock.now().getTime() - 3_600_000).toISOString(), "expired"),
      ]),
    );
    const rows = points((await otel.collect()).get(INSTRUMENTS.servedDaysLeft));
    expect(byCertificate(rows)).toEqual({ www: 10, shop: 3, blog: 0, old: -1 });
    expect(rows.find((r) => r.certificate === "www")).toMatchObject({
      domain: "www.contoso.com",
      source: "tls",
    });
    // A day later, without a new verification, the same certificates have a day less.
    clock.advance(DAY);
    const later = points((await otel.collect()).get(INSTRUMENTS.servedDaysLeft));
    expect(byCertificate(later)).toEqual({ www: 9, shop: 2, blog: -1, old: -2 });
  });

  it("is what is served, not what the service says: a vault certificate keyed by its source", async () => {
    otel.telemetry.recordVerification(
      run([
        {
          ...served("vault-cert", new Date(clock.now().getTime() + 40 * DAY).toISOString()),
          domain: "kv-fabrikam/vault-cert",
          source: "keyvault",
        },
      ]),
    );
    const rows = points((await otel.collect()).get(INSTRUMENTS.servedDaysLeft));
    expect(rows).toEqual([
      {
        certificate: "vault-cert",
        domain: "kv-fabrikam/vault-cert",
        source: "keyvault",
        value: 40,
      },
    ]);
  });

  it("a whole-inventory run replaces the set; a partial run (after a sweep) updates its names", async () => {
    const in5 = new Date(clock.now().getTime() + 5 * DAY).toISOString();
    const in60 = new Date(clock.now().getTime() + 60 * DAY).toISOString();
    otel.telemetry.recordVerification(run([served("www", in5), served("shop", in5)]));
    otel.telemetry.recordVerification(run([served("www", in60)]), { partial: true });
    expect(byCertificate(points((await otel.collect()).get(INSTRUMENTS.servedDaysLeft)))).toEqual({
      www: 60,
      shop: 5,
    });
    otel.telemetry.recordVerification(run([served("shop", in60)]));
    expect(byCertificate(points((await otel.collect()).get(INSTRUMENTS.servedDaysLeft)))).toEqual({
      shop: 60,
    });
  });

  it("leaves a certificate that could not be read out of the gauge: what it serves is unknown", async () => {
    const in5 = new Date(clock.now().getTime() + 5 * DAY).toISOString();
    otel.telemetry.recordVerification(run([served("www", in5)]));
    const { servedNotAfter: _, daysLeft: __, ...unread } = served("www", in5, "unreachable");
    otel.telemetry.recordVerification(run([unread as InventoryResult]), { partial: true });
    expect(points((await otel.collect()).get(INSTRUMENTS.servedDaysLeft))).toEqual([]);
  });

  it("counts results per status, critical apart", async () => {
    const soon = new Date(clock.now().getTime() + 5 * DAY).toISOString();
    otel.telemetry.recordVerification(
      run([
        served("a", soon),
        served("b", soon),
        served("c", soon, "not-landed"),
        { ...served("d", soon, "expiring"), critical: true },
        served("e", soon, "expiring"),
      ]),
    );
    const rows = points((await otel.collect()).get(INSTRUMENTS.verifications));
    expect(rows).toEqual(
      expect.arrayContaining([
        { status: "ok", critical: false, value: 2 },
        { status: "not-landed", critical: false, value: 1 },
        { status: "expiring", critical: true, value: 1 },
        { status: "expiring", critical: false, value: 1 },
      ]),
    );
    expect(rows).toHaveLength(4);
    // Delta temporality: the next export holds only the next run's results.
    otel.telemetry.recordVerification(run([served("a", soon)]));
    expect(points((await otel.collect()).get(INSTRUMENTS.verifications))).toEqual([
      { status: "ok", critical: false, value: 1 },
    ]);
  });
});
