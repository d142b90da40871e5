import { describe, expect, it } from "vitest";
import type { KeyVaultRead, Probes } from "../../../../shared/core/ports/probes.js";
import { sharedVaultReads } from "../../../../shared/usecases/steps/vaultSync.js";

/** Reads shared within one run: once per certificate and version, the current one apart. */

function countingProbes() {
  const asked: (string | undefined)[] = [];
  const probes: Probes = {
    tls: async () => {
      throw new Error("not asked here");
    },
    keyVault: async (_target, options): Promise<KeyVaultRead> => {
      asked.push(options.version);
      return {
        reached: false,
        failure: "not-found",
        detail: `read ${options.version ?? "current"}`,
      };
    },
  };
  return { probes, asked };
}

const TARGET = { keyVaultName: "kv", keyVaultCertificateName: "www", certificateName: "www.test" };
const settings = { timeoutMs: 1_000 };

describe("sharedVaultReads", () => {
  it("reads the current version once, each version once, and never gives one for another", async () => {
    const { probes, asked } = countingProbes();
    const shared = sharedVaultReads(probes);
    const reads = await Promise.all([
      shared.keyVault(TARGET, { settings }),
      shared.keyVault(TARGET, { settings, version: "v1" }),
      shared.keyVault(TARGET, { settings }),
      shared.keyVault(TARGET, { settings, version: "V1" }),
      shared.keyVault(TARGET, { settings, version: "v2" }),
    ]);
    expect(asked).toEqual([undefined, "v1", "v2"]);
    expect(reads.map((r) => !r.reached && r.detail)).toEqual([
      "read current",
      "read v1",
      "read current",
      "read v1",
      "read v2",
    ]);
  });
});
