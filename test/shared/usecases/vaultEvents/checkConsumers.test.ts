import { describe, expect, it } from "vitest";
import type { VaultVersion } from "../../../../shared/core/verification/syncCheck.js";
import { HOUR_MS } from "../../../../shared/lib/time.js";
import {
  checkConsumers,
  consumersLine,
  historyName,
  syncWindowEnd,
} from "../../../../shared/usecases/vaultEvents/checkConsumers.js";

/**
 * The parts of a consumer check told apart from the verification (which the end-to-end suites
 * run over the simulator: handleVaultEvents.test.ts): the window, the words, the names.
 */

const version: VaultVersion = {
  name: "kv-a/www",
  version: "v2",
  thumbprint: "AA",
  notBefore: new Date("2026-03-01T00:00:00Z"),
  notAfter: new Date("2026-06-01T00:00:00Z"),
  createdOn: new Date("2026-03-01T01:00:00Z"),
};

describe("checkConsumers", () => {
  it("the sync window ends CERTSCHED_SYNC_WINDOW after the version's creation (its notBefore without one)", () => {
    expect(syncWindowEnd(version, 2 * HOUR_MS).toISOString()).toBe("2026-03-01T03:00:00.000Z");
    expect(syncWindowEnd({ ...version, createdOn: undefined }, undefined).toISOString()).toBe(
      "2026-03-02T00:00:00.000Z",
    );
  });

  it("says who serves, who is behind and who was not read, names escaped", () => {
    expect(
      consumersLine({ serving: ["a.test"], behind: ["b.test\u001b[1m"], unread: ["c.test"] }),
    ).toBe("serving: a.test; behind: b.test\\u{1b}[1m; not read: c.test");
    expect(consumersLine({ serving: [], behind: ["b.test"], unread: [] })).toBe("behind: b.test");
  });

  it("a version no inventory name is bound to has nothing to check: no verification, no recheck", async () => {
    const sent: unknown[] = [];
    const queue = {
      kind: "inline" as const,
      send: async (m: unknown) => {
        sent.push(m);
      },
    };
    const outcome = await checkConsumers(
      {} as never,
      queue,
      { info() {}, warn() {}, error() {} },
      {
        account: "default",
        vaultName: "kv-a",
        certificateName: "www",
        version,
        names: [],
        nextAttempt: 1,
      },
      {},
    );
    expect(outcome).toEqual({
      outcome: "no certificate of the inventory is bound to it: nothing to check",
      rechecking: false,
    });
    expect(sent).toEqual([]);
  });

  it("names a certificate certsched does not keep vault:<vault>/<certificate>", () => {
    expect(historyName(undefined, "kv-a", "www")).toBe("vault:kv-a/www");
    expect(historyName("www-cert", "kv-a", "www")).toBe("www-cert");
  });
});
