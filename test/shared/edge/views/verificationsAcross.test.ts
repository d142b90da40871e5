import { describe, expect, it } from "vitest";
import type { InventoryVerification } from "../../../../shared/core/verification/inventoryResult.js";
import type { VerificationsView } from "../../../../shared/core/verification/views.js";
import {
  verificationRunAcross,
  verificationsAcross,
} from "../../../../shared/edge/views/verificationsAcross.js";

const view = (status: string, name: string): VerificationsView => ({
  results: [
    {
      certificateName: name,
      domain: `${name}.example`,
      source: "tls",
      status,
      detail: status,
      verifiedAt: "2026-03-01T00:00:00.000Z",
    },
  ],
  counts: { [status]: 1 },
  notVerified: ["new"],
  invalid: ["row x: bad"],
});

describe("verificationsAcross", () => {
  it("merges the accounts: most urgent first, each result with its account, counts summed", () => {
    const merged = verificationsAcross([
      { account: "a", value: view("ok", "www") },
      { account: "b", value: view("expired", "www") },
    ]);
    expect(merged.results.map((r) => [r.account, r.status])).toEqual([
      ["b", "expired"],
      ["a", "ok"],
    ]);
    expect(merged.counts).toEqual({ expired: 1, ok: 1 });
    expect(merged.notVerified).toEqual(["new", "new"]);
    expect(merged.invalid).toEqual(["account a: row x: bad", "account b: row x: bad"]);
    expect(merged.accounts).toEqual([
      { name: "a", results: 1, counts: { ok: 1 }, notVerified: ["new"] },
      { name: "b", results: 1, counts: { expired: 1 }, notVerified: ["new"] },
    ]);
  });

  it("keeps one account's lines as they were", () => {
    expect(verificationsAcross([{ account: "a", value: view("ok", "www") }]).invalid).toEqual([
      "row x: bad",
    ]);
  });
});

const run = (failed: boolean, at: string): InventoryVerification => ({
  at: new Date(at),
  results: [
    { domain: "www.example", source: "tls", status: failed ? "expired" : "ok", detail: "d" },
  ],
  counts: failed ? { expired: 1 } : { ok: 1 },
  failed,
  problems: failed ? ["www: expired"] : [],
  changes: [],
});

describe("verificationRunAcross", () => {
  it("fails when any account's run failed, naming the account in its problems", () => {
    const merged = verificationRunAcross([
      { account: "a", value: run(false, "2026-03-01T00:00:02Z") },
      { account: "b", value: run(true, "2026-03-01T00:00:01Z") },
    ]);
    expect(merged.failed).toBe(true);
    expect(merged.at).toEqual(new Date("2026-03-01T00:00:01Z"));
    expect(merged.problems).toEqual(["account b: www: expired"]);
    expect(merged.results.map((r) => r.account)).toEqual(["a", "b"]);
    expect(merged.accounts.map((a) => [a.name, a.failed])).toEqual([
      ["a", false],
      ["b", true],
    ]);
  });
});
