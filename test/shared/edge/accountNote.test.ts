import { describe, expect, it } from "vitest";
import { accountNote } from "../../../shared/edge/accountNote.js";

describe("accountNote", () => {
  it("names the account when accounts are declared, and adds nothing otherwise", () => {
    expect(accountNote({ account: "contoso", accountsDeclared: true })).toBe(" (account contoso)");
    expect(accountNote({ account: "default", accountsDeclared: false })).toBe("");
  });
});
