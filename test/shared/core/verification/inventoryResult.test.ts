import { describe, expect, it } from "vitest";
import type { InventoryRecord } from "../../../../shared/core/ports/inventory.js";
import {
  countInventoryStatuses,
  failsRun,
  type InventoryResult,
  needsPerson,
  problemLine,
  severity,
  toRecord,
  withGrace,
} from "../../../../shared/core/verification/inventoryResult.js";
import type { InventoryStatus } from "../../../../shared/core/verification/judge.js";
import { REDACTED } from "../../../../shared/lib/redact/redact.js";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../../../../shared/lib/time.js";

const NOW = new Date("2025-03-01T12:00:00.000Z");
const ago = (ms: number) => new Date(NOW.getTime() - ms);

const result = (
  status: InventoryStatus,
  extra: Partial<InventoryResult> = {},
): InventoryResult => ({
  domain: "www.contoso.com",
  certificateName: "web",
  source: "tls",
  status,
  detail: "the detail",
  ...extra,
});

const owner = (lastVerification?: InventoryRecord["lastVerification"]): InventoryRecord => ({
  certificateName: "web",
  source: "due-list",
  firstSeen: ago(30 * DAY_MS),
  lastSeen: NOW,
  lastVerification,
});

const unreachableRecord = (since: Date) =>
  owner({
    at: ago(MINUTE_MS),
    status: "unreachable",
    source: "tls",
    domain: "www.contoso.com",
    detail: "d",
    unreachableSince: since,
  });

describe("needsPerson and failsRun", () => {
  it.each([
    ["not-landed", {}, true],
    ["expired", {}, true],
    ["mismatch", {}, true],
    ["untrusted", {}, true],
    ["expiring", {}, false],
    ["expiring", { critical: true }, true],
    ["unreachable", {}, false],
    ["unreachable", { pastGrace: false }, false],
    ["unreachable", { pastGrace: true }, true],
    ["pending", {}, false],
    ["ok", {}, false],
    ["unverifiable", {}, false],
    ["ok", { critical: true, pastGrace: true }, false],
  ] as const)("%s %o: %s", (status, flags, expected) => {
    expect(needsPerson({ status, ...flags })).toBe(expected);
    expect(failsRun(result(status, flags as Partial<InventoryResult>))).toBe(expected);
  });
});

describe("countInventoryStatuses", () => {
  it("counts each status that occurs, in the contract's order, unverifiable last", () => {
    const counts = countInventoryStatuses([
      { status: "ok" },
      { status: "unverifiable" },
      { status: "ok" },
      { status: "unreachable" },
      { status: "expired" },
    ]);
    expect(counts).toEqual({ unreachable: 1, expired: 1, ok: 2, unverifiable: 1 });
    expect(Object.keys(counts)).toEqual(["unreachable", "expired", "ok", "unverifiable"]);
    expect(countInventoryStatuses([])).toEqual({});
  });
});

describe("withGrace", () => {
  const grace = { unreachableAfterMs: 24 * HOUR_MS };

  it("leaves a result that is not unreachable as it is", () => {
    const ok = result("ok");
    expect(withGrace(ok, [unreachableRecord(ago(DAY_MS))], NOW, grace, true)).toEqual({
      result: ok,
    });
  });

  it("with no record kept there is no grace: past it at once, detail unchanged", () => {
    expect(withGrace(result("unreachable"), [], NOW, grace, false)).toEqual({
      result: { ...result("unreachable"), pastGrace: true },
    });
  });

  it("a first failure starts the grace now", () => {
    const { result: r, unreachableSince } = withGrace(
      result("unreachable"),
      [owner()],
      NOW,
      grace,
      true,
    );
    expect(unreachableSince).toEqual(NOW);
    expect(r.pastGrace).toBe(false);
    expect(r.detail).toBe(
      `the detail; unreachable since ${NOW.toISOString()}; an error once that is 1 d (CERTSCHED_VERIFY_UNREACHABLE_AFTER) ago`,
    );
  });

  it("counts from the earliest failure on record; at exactly the grace it is past", () => {
    const since = ago(24 * HOUR_MS);
    const later = unreachableRecord(ago(HOUR_MS));
    const { result: r, unreachableSince } = withGrace(
      result("unreachable"),
      [later, unreachableRecord(since)],
      NOW,
      grace,
      true,
    );
    expect(unreachableSince).toEqual(since);
    expect(r.pastGrace).toBe(true);
    expect(r.detail).toBe(
      `the detail; unreachable since ${since.toISOString()}, for at least 1 d (CERTSCHED_VERIFY_UNREACHABLE_AFTER)`,
    );
  });

  it("one millisecond short of the grace is within it", () => {
    const { result: r } = withGrace(
      result("unreachable"),
      [unreachableRecord(ago(24 * HOUR_MS - 1))],
      NOW,
      grace,
      true,
    );
    expect(r.pastGrace).toBe(false);
  });

  it("ignores a stored failure that is not unreachable, or one in the future", () => {
    const notUnreachable = owner({
      at: ago(MINUTE_MS),
      status: "expired",
      source: "tls",
      domain: "www.contoso.com",
      detail: "d",
      unreachableSince: ago(2 * DAY_MS),
    });
    const future = unreachableRecord(new Date(NOW.getTime() + HOUR_MS));
    const { unreachableSince } = withGrace(
      result("unreachable"),
      [notUnreachable, future],
      NOW,
      grace,
      true,
    );
    expect(unreachableSince).toEqual(NOW);
  });

  it.each([
    [2 * DAY_MS, "2 d"],
    [DAY_MS + HOUR_MS, "25 h"],
    [90 * MINUTE_MS, "90 min"],
    [MINUTE_MS, "1 min"],
    [HOUR_MS, "1 h"],
    [90_000, "90 s"],
    [1_499, "1 s"],
  ])("says a grace of %i ms as %s", (ms, words) => {
    const { result: r } = withGrace(
      result("unreachable"),
      [],
      NOW,
      { unreachableAfterMs: ms },
      true,
    );
    expect(r.detail).toContain(`is ${words} (CERTSCHED_VERIFY_UNREACHABLE_AFTER)`);
  });

  it("keeps the note whole and cuts the cause to make room", () => {
    const { result: r } = withGrace(
      result("unreachable", { detail: "x".repeat(2_000) }),
      [],
      NOW,
      grace,
      true,
    );
    expect(r.detail.length).toBeLessThanOrEqual(500);
    expect(r.detail.endsWith("(CERTSCHED_VERIFY_UNREACHABLE_AFTER) ago")).toBe(true);
  });
});

describe("severity", () => {
  it("orders: needs a person, unreachable, expiring, pending, unverifiable, ok", () => {
    const ordered = [
      result("expired"),
      result("unreachable"),
      result("expiring"),
      result("pending"),
      result("unverifiable"),
      result("ok"),
    ].map(severity);
    expect(ordered).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("a failing unreachable or critical expiring counts with the bad ones", () => {
    expect(severity(result("unreachable", { pastGrace: true }))).toBe(0);
    expect(severity(result("expiring", { critical: true }))).toBe(0);
    expect(severity(result("mismatch"))).toBe(0);
  });
});

describe("toRecord", () => {
  it("keeps what the inventory shows, the expiry as a Date, the detail redacted", () => {
    const since = ago(HOUR_MS);
    const record = toRecord(
      result("expiring", {
        critical: true,
        servedNotAfter: "2025-03-05T00:00:00.000Z",
        daysLeft: 3,
        issuer: "CN=CA",
        serial: "01",
        thumbprint: "AB",
        notBefore: "2024-12-05T00:00:00.000Z",
        version: "v7",
        detail: "Authorization: Bearer abc.def-ghi",
      }),
      NOW,
      since,
    );
    expect(record).toEqual({
      at: NOW,
      status: "expiring",
      source: "tls",
      domain: "www.contoso.com",
      detail: `Authorization: Bearer ${REDACTED}`,
      critical: true,
      servedNotAfter: new Date("2025-03-05T00:00:00.000Z"),
      daysLeft: 3,
      issuer: "CN=CA",
      thumbprint: "AB",
      serial: "01",
      notBefore: new Date("2024-12-05T00:00:00.000Z"),
      version: "v7",
      unreachableSince: since,
    });
  });

  it("keeps the CT hashes of the certificate read, for matching issuances", () => {
    const hashes = { pubkeySha256: "0f".repeat(32), tbsSha256: "a1".repeat(32) };
    expect(toRecord(result("ok", hashes), NOW, undefined)).toMatchObject(hashes);
    expect(problemLine(result("expired", hashes))).not.toContain("0f0f");
  });

  it("leaves out what is not known (daysLeft 0 is known)", () => {
    expect(toRecord(result("ok", { daysLeft: 0 }), NOW, undefined)).toEqual({
      at: NOW,
      status: "ok",
      source: "tls",
      domain: "www.contoso.com",
      detail: "the detail",
      daysLeft: 0,
    });
  });
});

describe("problemLine", () => {
  it("who, where, what, why", () => {
    expect(problemLine(result("expired"))).toBe("web (www.contoso.com): expired: the detail");
    expect(problemLine(result("expiring", { critical: true }))).toBe(
      "web (www.contoso.com): expiring (critical): the detail",
    );
    expect(problemLine(result("unreachable", { pastGrace: true }))).toBe(
      "web (www.contoso.com): unreachable past its grace: the detail",
    );
    expect(problemLine(result("ok", { certificateName: undefined }))).toBe(
      "www.contoso.com: ok: the detail",
    );
  });

  it("escapes control characters, redacts, and bounds a long name", () => {
    const line = problemLine(
      result("expired", {
        certificateName: `evil\nFAKE LOG ${"n".repeat(300)}`,
        detail: "Bearer abc.def-ghi",
      }),
    );
    expect(line).not.toContain("\n");
    expect(line).toContain(`Bearer ${REDACTED}`);
    expect(line.length).toBeLessThan(200);
  });
});
