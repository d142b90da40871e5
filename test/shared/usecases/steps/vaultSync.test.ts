import { afterEach, describe, expect, it } from "vitest";
import { loadVerifySettings } from "../../../../shared/app/config/verifySettings.js";
import type { AccountPorts } from "../../../../shared/app/services.js";
import { memoryInventory } from "../../../../shared/core/ports/inventory.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import type { InventoryResult } from "../../../../shared/core/verification/inventoryResult.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";
import { verifyInventory } from "../../../../shared/usecases/steps/verifyInventory.js";
import { sweep } from "../../../../shared/usecases/sweep/sweep.js";
import {
  type Hosting,
  type Simulator,
  sandboxSettings,
  startSimulator,
} from "../../../../sim/index.js";
import { collectingLogger, runtimeFor } from "../../../support/app.js";
import { fakeClock } from "../../../support/clock.js";

/**
 * Did the consumers pick up the vault's new version, end to end over real sockets: a sweep renews
 * two Key Vault certificates through the simulator; the renewal installs a new version in the
 * simulator's vault (read with the real CertificateClient); the hosting endpoint serves each
 * rootDomain with the version its consumer has picked up, one of them `vaultLag` behind. The
 * lagging domain is pending within CERTSCHED_SYNC_WINDOW of the version's creation, not-synced from
 * then on (the run fails), ok once it serves the new version.
 */

const COMPLETION_MS = 30 * 60_000;
const LAG_MS = 30 * HOUR_MS;
const KV = "Cloud Key Vault + DNS";

let sim: Simulator | undefined;
let runtime: AccountPorts | undefined;
afterEach(async () => {
  await runtime?.close();
  await sim?.close();
  sim = runtime = undefined;
});

async function swept() {
  // Half a second past a whole one: X.509 and the vault's `created` keep whole seconds.
  const clock = fakeClock(new Date(Math.floor(Date.now() / 1000) * 1000 + 500).toISOString());
  const start = clock.now().getTime();
  const inDays = (days: number) => new Date(start + days * DAY_MS);
  sim = await startSimulator({
    now: clock.now,
    completionDelayMs: COMPLETION_MS,
    hosting: { vaultLag: { "kv-lagging": LAG_MS } },
    certificates: [
      {
        certificateName: "kv-lagging",
        rootDomain: "www.sync.test",
        target: KV,
        keyVaultName: "kv-sync",
        expiryDate: inDays(5),
      },
      {
        certificateName: "kv-quick",
        rootDomain: "api.sync.test",
        target: KV,
        keyVaultName: "kv-sync",
        expiryDate: inDays(6),
      },
    ],
  });
  const hosting = sim.hosting as Hosting;
  runtime = runtimeFor(
    sim,
    {},
    { now: clock.now, inventory: memoryInventory(), ledger: memoryLedger() },
  );
  const { log } = collectingLogger();
  await sweep(runtime, log, { trigger: "timer" });
  const rt = runtime;
  const settings = loadVerifySettings({
    CERTSCHED_VERIFY_CONNECT_TO: sandboxSettings(sim).CERTSCHED_VERIFY_CONNECT_TO,
    CERTSCHED_HTTP_TIMEOUT: "10s",
  });
  const verify = async (trustVault = true) => {
    const run = await verifyInventory(rt, log, {
      trigger: "timer",
      settings,
      // The simulator's CA, for the domains and (as NODE_EXTRA_CA_CERTS does) for the vault.
      ca: [hosting.caPem],
      keyVault: trustVault ? { clientOptions: { tlsOptions: { ca: hosting.caPem } } } : {},
    });
    const byDomain: Record<string, InventoryResult> = Object.fromEntries(
      run.results.map((r) => [r.domain, r]),
    );
    return { run, byDomain };
  };
  /** When the renewed version of `name` was created in the vault (ms, sim clock). */
  const createdOf = (name: string) =>
    (hosting.vault.versions("kv-sync", name).at(-1)?.created ?? 0) * 1000;
  return { clock, start, verify, hosting, createdOf };
}

describe("not-synced through the simulator: vault renewed, one domain lagging", () => {
  it("pending within CERTSCHED_SYNC_WINDOW (pinned at its last millisecond), not-synced at 24 h, ok once the consumer caught up", async () => {
    const { clock, start, verify, createdOf, hosting } = await swept();

    // Before completion: the vault still holds the old version; the renewal is in flight for
    // the vault and for the domains that serve it.
    const before = await verify();
    expect(before.byDomain["www.sync.test"]).toMatchObject({
      certificateName: "kv-lagging",
      source: "tls",
      status: "pending",
    });
    expect(before.byDomain["www.sync.test"]?.detail).toContain("CERTSCHED_VERIFY_WINDOW");

    clock.advance(COMPLETION_MS);
    const completed = await verify();
    const created = createdOf("kv-lagging");
    expect(hosting.vault.versions("kv-sync", "kv-lagging")).toHaveLength(2);
    expect(created).toBeGreaterThanOrEqual(start + COMPLETION_MS - 1000);
    expect(completed.byDomain["kv-sync/kv-lagging"]?.status).toBe("ok");
    expect(completed.byDomain["kv-sync/kv-quick"]?.status).toBe("ok");
    expect(completed.byDomain["api.sync.test"]?.status).toBe("ok");
    expect(completed.byDomain["www.sync.test"]?.status).toBe("pending");
    expect(completed.byDomain["www.sync.test"]?.detail).toContain(
      `but vault kv-sync/kv-lagging holds version`,
    );
    expect(completed.byDomain["www.sync.test"]?.detail).toContain(
      `since ${new Date(created).toISOString()}; its consumers may take up to 24 h to pick it up (CERTSCHED_SYNC_WINDOW)`,
    );
    expect(completed.run.failed).toBe(false);

    clock.advance(created + 24 * HOUR_MS - 1 - clock.now().getTime());
    const lastPending = await verify();
    clock.advance(1);
    const late = await verify();

    expect(lastPending.byDomain["www.sync.test"]?.status).toBe("pending");
    expect(late.byDomain["www.sync.test"]).toMatchObject({
      certificateName: "kv-lagging",
      source: "tls",
      status: "not-synced",
    });
    expect(late.byDomain["www.sync.test"]?.detail).toContain(
      "(more than 24 h, CERTSCHED_SYNC_WINDOW): re-sync the App Service certificate from Key Vault (or restart the app), or check that the gateway's / Front Door's identity can read the vault",
    );
    expect(late.byDomain["api.sync.test"]?.status).toBe("ok");
    expect(late.run.counts).toMatchObject({ "not-synced": 1 });
    expect(late.run.failed).toBe(true);
    expect(late.run.problems).toEqual([
      expect.stringMatching(/^kv-lagging \(www\.sync\.test\): not-synced: serves /),
    ]);

    // The consumer's lag passes: it serves the vault's current version.
    clock.advance(created + LAG_MS - clock.now().getTime());
    const caughtUp = await verify();
    expect(caughtUp.byDomain["www.sync.test"]?.status).toBe("ok");
    expect(caughtUp.run.failed).toBe(false);
  });

  it("the vault unreadable: the domain is judged as before, never not-synced", async () => {
    const { clock, verify } = await swept();
    clock.advance(COMPLETION_MS + 25 * HOUR_MS);

    // The vault's certificate is not trusted without the simulator's CA: no read.
    const { byDomain } = await verify(false);

    expect(byDomain["kv-sync/kv-lagging"]?.status).toBe("unreachable");
    // Judged without the vault, by expiry: the renewal accepted more than
    // CERTSCHED_VERIFY_WINDOW ago, the old certificate still served.
    expect(byDomain["www.sync.test"]?.status).toBe("not-landed");
    expect(byDomain["api.sync.test"]?.status).toBe("ok");
  });
});
