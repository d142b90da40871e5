import { describe, expect, it } from "vitest";
import type {
  KeyVaultRead,
  KeyVaultReadOptions,
  Probes,
  VaultCertificate,
} from "../../../../shared/core/ports/probes.js";
import type { VaultEvent } from "../../../../shared/core/vaultEvents/vaultEvent.js";
import {
  confirmWithVault,
  withVaultSeam,
} from "../../../../shared/usecases/vaultEvents/confirmWithVault.js";

/**
 * The vault's word on an event: the version it names and the current one, both read (never the
 * payload's), a vault name Azure would refuse never read at all.
 */

const event = (over: Partial<VaultEvent> = {}): VaultEvent => ({
  id: "e1",
  kind: "new-version",
  schema: "eventgrid",
  vaultName: "kv-a",
  certificateName: "www",
  version: "v2",
  subscriptionId: "00000000-1111-2222-3333-444444444444",
  resourceGroup: "rg",
  ...over,
});

const read = (version: string, created: string): KeyVaultRead =>
  ({
    reached: true,
    version,
    createdOn: new Date(created),
    certificate: {
      thumbprint: `T-${version}`,
      notBefore: new Date(created),
      notAfter: new Date(Date.parse(created) + 90 * 86_400_000),
    },
  }) as never;

function vault(versions: Record<string, KeyVaultRead>, current: string) {
  const asked: { target: VaultCertificate; options: KeyVaultReadOptions }[] = [];
  const probes: Pick<Probes, "keyVault"> = {
    keyVault: async (target, options) => {
      asked.push({ target, options });
      const v = options.version ?? current;
      return (
        versions[v] ?? {
          reached: false,
          failure: "not-found",
          status: 404,
          detail: `no version ${v}`,
        }
      );
    },
  };
  const settings = { verify: () => ({ timeoutMs: 5000, connectTo: [] }) as never };
  return { ports: { probes, settings }, asked };
}

const V1 = read("v1", "2026-01-01T00:00:00Z");
const V2 = read("v2", "2026-03-01T00:00:00Z");

describe("confirmWithVault", () => {
  it("reads the named version and the current one: the current version confirmed", async () => {
    const { ports, asked } = vault({ v1: V1, v2: V2 }, "v2");
    const confirmed = await confirmWithVault(ports, event(), undefined, {});
    expect(confirmed).toMatchObject({
      kind: "confirmed",
      version: { thumbprint: "T-v2" },
      current: { thumbprint: "T-v2" },
    });
    expect(
      asked.map((a) => [
        a.target.keyVaultName,
        a.target.keyVaultCertificateName,
        a.options.version,
      ]),
    ).toEqual([
      ["kv-a", "www", "v2"],
      ["kv-a", "www", undefined],
    ]);
  });

  it("a version the vault does not hold, and an older one, are skipped", async () => {
    const { ports } = vault({ v1: V1, v2: V2 }, "v2");
    expect(await confirmWithVault(ports, event({ version: "v9" }), undefined, {})).toMatchObject({
      kind: "skip",
      reason: "no-such-version",
    });
    expect(await confirmWithVault(ports, event({ version: "v1" }), undefined, {})).toMatchObject({
      kind: "skip",
      reason: "older-version",
    });
  });

  it("a vault name Azure would refuse is never read", async () => {
    const { ports, asked } = vault({}, "v2");
    expect(await confirmWithVault(ports, event({ vaultName: "x" }), undefined, {})).toMatchObject({
      kind: "refused",
    });
    expect(asked).toEqual([]);
  });

  it("the tests' vault seam reaches every vault read, the verification's too", async () => {
    const { ports, asked } = vault({ v2: V2 }, "v2");
    const seam = { vaultUrl: () => "https://127.0.0.1:1" };
    await confirmWithVault(ports, event(), undefined, { keyVault: seam });
    const seamed = withVaultSeam(
      { tls: async () => ({}) as never, keyVault: ports.probes.keyVault },
      seam,
    );
    await seamed.keyVault(
      { keyVaultName: "kv-a", certificateName: "www" },
      { settings: { timeoutMs: 1 } },
    );
    expect(asked.map((a) => a.options.seam)).toEqual([seam, seam, seam]);
  });
});
