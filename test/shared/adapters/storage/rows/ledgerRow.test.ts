import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  fromRow,
  MAX_DETAIL,
  toRow,
} from "../../../../../shared/adapters/storage/rows/ledgerRow.js";
import { LEDGER_OUTCOMES, type LedgerRecord } from "../../../../../shared/core/ports/ledger.js";
import { ValidationError } from "../../../../../shared/lib/errors.js";

const TABLE = "certschedrenewals";

/** Instants a ledger stores: whole milliseconds in the years certsched will run. */
const instant = fc
  .integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2100, 0, 1) })
  .map((ms) => new Date(ms));

/** Every record a sweep can write: the states' rules hold (sent states carry their dates). */
const record: fc.Arbitrary<LedgerRecord> = fc
  .record({
    id: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    certificateName: fc.string({ minLength: 1, maxLength: 64 }),
    expiryAtRequest: instant,
    first: instant,
    gapMs: fc.integer({ min: 0, max: 30 * 86_400_000 }),
    claimedAt: instant,
    outcome: fc.constantFrom(...LEDGER_OUTCOMES),
    attempts: fc.integer({ min: 0, max: 1_000 }),
    detail: fc.option(fc.string({ minLength: 1, maxLength: MAX_DETAIL }), { nil: undefined }),
    reason: fc.option(fc.constantFrom("NewRenewal", "GraceElapsed", "UnsentClaimExpired"), {
      nil: undefined,
    }),
    neverSent: fc.boolean(),
    runId: fc.option(fc.uuid(), { nil: undefined }),
  })
  .map((r) => {
    // "claimed" and "failed" may come before any request of the episode was sent.
    const unsentAllowed = r.outcome === "claimed" || r.outcome === "failed";
    const sent = !(unsentAllowed && r.neverSent);
    return {
      id: r.id,
      certificateName: r.certificateName,
      expiryAtRequest: r.expiryAtRequest,
      firstRequestedAt: sent ? r.first : undefined,
      lastRequestedAt: sent ? new Date(r.first.getTime() + r.gapMs) : undefined,
      outcome: r.outcome,
      attempts: r.attempts,
      detail: r.detail,
      ...(r.outcome === "claimed" ? { claimedAt: r.claimedAt } : {}),
      ...(r.reason ? { reason: r.reason } : {}),
      ...(r.runId ? { runId: r.runId.toLowerCase() } : {}),
    };
  });

describe("ledger rows", () => {
  test.prop([record])("every record a sweep writes reads back as itself", (r) => {
    const row = toRow(r) as unknown as Record<string, unknown>;
    expect(fromRow(row, TABLE)).toEqual(r);
  });

  it("refuses a runId that is not a run id, naming it", () => {
    const row = { ...valid(), runId: "../other" };
    expect(() => fromRow(row, TABLE)).toThrow(ValidationError);
    expect(() => fromRow(row, TABLE)).toThrow(/runId: must be a run id/);
  });

  const valid = () =>
    toRow({
      id: 4711,
      certificateName: "www-contoso-com",
      expiryAtRequest: new Date("2026-03-06T10:00:00.000Z"),
      firstRequestedAt: new Date("2026-03-01T03:00:00.000Z"),
      lastRequestedAt: new Date("2026-03-01T05:00:00.000Z"),
      outcome: "renewal-scheduled",
      attempts: 2,
      detail: undefined,
    }) as unknown as Record<string, unknown>;

  it("reads an old 'requesting' row as sent, answer unknown", () => {
    expect(fromRow({ ...valid(), outcome: "requesting" }, TABLE).outcome).toBe("answer-unknown");
  });

  it.each([
    ["an outcome this version does not know", { outcome: "renewed" }, ["outcome"]],
    ["attempts that are not a count", { attempts: "2" }, ["attempts"]],
    ["negative attempts", { attempts: -1 }, ["attempts"]],
    ["a date that is not ISO-8601 UTC", { lastRequestedAt: "01/03/2026" }, ["lastRequestedAt"]],
    [
      "a date with an offset",
      { expiryAtRequest: "2026-03-06T10:00:00+02:00" },
      ["expiryAtRequest"],
    ],
    ["a row key that is not an id", { rowKey: "www" }, ["rowKey"]],
    ["an empty name", { certificateName: "" }, ["certificateName"]],
    ["a claim without its time", { outcome: "claimed" }, ["claimedAt"]],
    [
      "a scheduled renewal without request times",
      { firstRequestedAt: undefined, lastRequestedAt: undefined },
      ["firstRequestedAt", "lastRequestedAt"],
    ],
    [
      "a last request before the first",
      { lastRequestedAt: "2026-02-28T03:00:00.000Z" },
      ["lastRequestedAt"],
    ],
  ])("refuses %s, naming the field", (_, change, fields) => {
    let thrown: unknown;
    try {
      fromRow({ ...valid(), ...change }, TABLE);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    const error = thrown as ValidationError;
    expect(error.issues.map((i) => i.name)).toEqual(fields);
    expect(error.message).toMatch(/^Invalid ledger row \S+ in table certschedrenewals: /);
  });
});
