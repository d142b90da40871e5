import { inject } from "vitest";
import { memoryEstateStore } from "../../shared/adapters/storage/memory/memoryEstate.js";
import type { Seams } from "../../shared/app/seams.js";
import type { AccountPorts } from "../../shared/app/services.js";
import type { EstateStore } from "../../shared/core/ports/estate.js";
import { memoryInventory } from "../../shared/core/ports/inventory.js";
import type { KeyVaultSeam } from "../../shared/core/ports/probes.js";
import {
  type ArmSimulator,
  type Hosting,
  type Simulator,
  sampleCertificates,
  sandboxSettings,
  seedSandboxEstate,
  startArm,
  startSimulator,
  type VaultEstate,
} from "../../sim/index.js";
import { runtimeFor } from "./app.js";

/**
 * The sandbox's estate for a test: the simulator with its hosting side (the vault lists its
 * certificates), its Resource Manager answering Resource Graph over loopback TLS and accepting
 * only the simulator's tokens, the contoso samples in the inventory as a sweep would have put
 * them, and an app whose estate store is in memory.
 */
export interface EstateWorld {
  readonly sim: Simulator;
  readonly arm: ArmSimulator;
  readonly vault: VaultEstate;
  readonly runtime: AccountPorts;
  readonly store: EstateStore;
  /** Where the simulator's vault is and the CA it needs. */
  readonly keyVault: KeyVaultSeam;
  readonly now: Date;
  /** The settings the app of a function test runs with (the simulator's, CERTSCHED_ARM_URL, `settings`). */
  readonly settings: Record<string, string>;
  /** The seams a function test's app needs: the world's store and inventory, readers that trust the vault. */
  seams(): Promise<Seams>;
  close(): Promise<void>;
}

export async function startEstateWorld(
  settings: Record<string, string> = {},
  now = new Date(Math.floor(Date.now() / 1000) * 1000),
): Promise<EstateWorld> {
  const sim = await startSimulator({ hosting: {}, certificates: sampleCertificates(now) });
  const arm = await startArm({
    ...inject("loopbackTls"),
    acceptToken: (token) => sim.issuedTokens().includes(token),
  });
  seedSandboxEstate(sim, arm, { now });
  const store = memoryEstateStore();
  const inventory = memoryInventory();
  await inventory.upsert(
    sim.certificates().map((c) => ({
      certificateName: c.certificateName,
      rootDomain: c.rootDomain ?? undefined,
      keyVaultName: c.keyVaultName ?? undefined,
      source: "due-list" as const,
      seenAt: now,
    })),
  );
  const appSettings = { ...sandboxSettings(sim), CERTSCHED_ARM_URL: arm.url, ...settings };
  const runtime = runtimeFor(sim, appSettings, { estate: store, inventory });
  const hosting = sim.hosting as Hosting;
  const keyVault: KeyVaultSeam = { clientOptions: { tlsOptions: { ca: hosting.caPem } } };
  const vault = (hosting.vault as unknown as { estate: VaultEstate }).estate;
  return {
    sim,
    arm,
    vault,
    runtime,
    store,
    keyVault,
    now,
    settings: appSettings,
    seams: async () => ({
      estate: store,
      inventory,
      estateReaders: await runtime.estateReaders(keyVault),
    }),
    close: async () => {
      await runtime.close();
      await arm.close();
      await sim.close();
    },
  };
}
