import { describe, expect, it } from "vitest";
import { MANUAL_REQUEST, requesterOf } from "../../../../shared/core/renewal/requester.js";

describe("requesterOf", () => {
  it("a function-key caller is recorded as function-key, over HTTP", () => {
    expect(requesterOf({ kind: "function-key" })).toEqual({
      trigger: "http",
      by: "function-key",
    });
  });

  it("an Entra ID caller is recorded by name and object id", () => {
    expect(
      requesterOf({ kind: "entra", id: "00000000-0000-0000-0000-000000000001", name: "Ops Bot" }),
    ).toEqual({ trigger: "http", by: "entra:Ops Bot (00000000-0000-0000-0000-000000000001)" });
  });

  it("the manual renewal's reason constant is stable (ledger rows and history carry it)", () => {
    expect(MANUAL_REQUEST).toBe("ManualRequest");
  });
});
