import { describe, expect, it } from "vitest";
import { noTransparencyStore } from "../../../shared/adapters/storage/memory/memoryTransparency.js";
import { registerSecret } from "../../../shared/lib/redact/redact.js";
import { readIssuanceStatus } from "../../../shared/usecases/listStatus.js";
import { everyState, failingStore, storeWith } from "../../support/seenIssuances.js";

describe("readIssuanceStatus", () => {
  it("reads the account's own issuances from the store: unexpected and pending", async () => {
    const store = await storeWith([...everyState("contoso"), ...everyState("fabrikam")]);
    const status = await readIssuanceStatus(store, "contoso");
    expect(status?.unexpected.map((s) => [s.account, s.issuance.id])).toEqual([["contoso", "u1"]]);
    expect(status?.pending.map((s) => s.issuance.id)).toEqual(["p1"]);
  });

  it("a store that throws is a problem line (redacted), never a throw", async () => {
    // A secret the app registered (the Cert Spotter API key, a storage key) never shows.
    registerSecret("abcdefghijklmnopqrstuvwxyz0123456789");
    const status = await readIssuanceStatus(
      failingStore("table unreachable: key abcdefghijklmnopqrstuvwxyz0123456789 refused"),
      "contoso",
    );
    expect(status?.unexpected).toEqual([]);
    expect(status?.problems).toHaveLength(1);
    expect(status?.problems[0]).toContain(
      "Certificate Transparency issuances could not be read: table unreachable",
    );
    expect(status?.problems[0]).not.toContain("abcdefghijklmnopqrstuvwxyz0123456789");
  });

  it("no store, or none: nothing to say", async () => {
    expect(await readIssuanceStatus(undefined, "contoso")).toBeUndefined();
    expect(await readIssuanceStatus(noTransparencyStore, "contoso")).toBeUndefined();
  });
});
