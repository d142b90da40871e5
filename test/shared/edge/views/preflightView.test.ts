import { describe, expect, it } from "vitest";
import type { InventoryRecord } from "../../../../shared/core/ports/inventory.js";
import type { PreflightResult } from "../../../../shared/core/preflight/preflight.js";
import {
  preflightAcross,
  resultView,
  storedResults,
} from "../../../../shared/edge/views/preflightView.js";

const AT = new Date("2026-03-01T05:30:00.000Z");

const result = (
  certificateName: string,
  status: PreflightResult["status"],
  account = "contoso",
): PreflightResult => ({
  account,
  certificateName,
  rootDomain: `${certificateName}.example`,
  status,
  checks:
    status === "will-fail"
      ? [{ check: "caa", status: "fail", reason: "caa-forbids", detail: "forbidden" }]
      : [{ check: "caa", status: status === "ready" ? "pass" : "unknown", detail: "d" }],
  at: AT,
});

describe("resultView", () => {
  it("is the CLI's result with `at` in ISO 8601; `reason` on every check, null unless failed", () => {
    expect(JSON.parse(JSON.stringify(resultView(result("www", "will-fail"))))).toEqual({
      account: "contoso",
      certificateName: "www",
      rootDomain: "www.example",
      status: "will-fail",
      checks: [{ check: "caa", status: "fail", reason: "caa-forbids", detail: "forbidden" }],
      at: "2026-03-01T05:30:00.000Z",
    });
    expect(resultView(result("www", "ready")).checks[0]).toEqual({
      check: "caa",
      status: "pass",
      reason: null,
      detail: "d",
    });
  });
});

describe("storedResults", () => {
  it("takes the rows with a stored preflight, in their order, and names the account", () => {
    const row = (certificateName: string, lastPreflight?: InventoryRecord["lastPreflight"]) =>
      ({
        certificateName,
        source: "due-list",
        firstSeen: AT,
        lastSeen: AT,
        lastPreflight,
      }) as InventoryRecord;
    const { account: _a, certificateName: _c, ...stored } = result("b", "ready");
    expect(storedResults("fabrikam", [row("a"), row("b", stored)])).toEqual([
      { ...result("b", "ready"), account: "fabrikam" },
    ]);
  });
});

describe("preflightAcross", () => {
  const parts = [
    { account: "contoso", value: [result("a", "ready"), result("b", "will-fail")] },
    { account: "fabrikam", value: [result("a", "unknown", "fabrikam")] },
  ];

  it("keeps the accounts' order and counts every status, zero included", () => {
    const doc = preflightAcross(parts);
    expect(doc.results.map((r) => `${r.account}/${r.certificateName}`)).toEqual([
      "contoso/a",
      "contoso/b",
      "fabrikam/a",
    ]);
    expect(doc.counts).toEqual({ ready: 1, "will-fail": 1, unknown: 1 });
  });

  it("filters by certificate and status, both at once; counts what is shown", () => {
    expect(preflightAcross(parts, { certificate: "a" }).counts).toEqual({
      ready: 1,
      "will-fail": 0,
      unknown: 1,
    });
    expect(preflightAcross(parts, { certificate: "a", status: "unknown" }).results).toHaveLength(1);
    expect(preflightAcross(parts, { certificate: "b", status: "ready" }).results).toEqual([]);
  });
});
