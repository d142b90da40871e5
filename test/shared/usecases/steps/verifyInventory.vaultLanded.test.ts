import { X509Certificate } from "node:crypto";
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
  type HostingFault,
  type Simulator,
  sandboxSettings,
  startSimulator,
} from "../../../../sim/index.js";
import { collectingLogger, leaksIn, runtimeFor } from "../../../support/app.js";
import { fakeClock } from "../../../support/clock.js";

/**
 * From renewal to landing, for Key Vault certificates, end to end over real HTTPS: a sweep renews
 * through the simulator, the ledger records the acceptance, the inventory run reads the simulator's
 * vault through the real CertificateClient, certsched's vault token and CERTSCHED_VERIFY_CONNECT_TO
 * (the sandbox's own routing, vault hosts to the simulator's vault): pending within
 * CERTSCHED_VERIFY_WINDOW, then ok once the new version is current, or not-landed when the vault
 * kept the old version.
 */

const COMPLETION_MS = 30 * 60_000;
const WINDOW_MS = 2 * HOUR_MS;
const KV = "Cloud Key Vault + DNS";

let sim: Simulator | undefined;
let runtime: AccountPorts | undefined;
afterEach(async () => {
  await runtime?.close();
  await sim?.close();
  sim = runtime = undefined;
});

async function sweptWith(faults: Record<string, HostingFault> = {}) {
  // Half a second past a whole one: X.509 keeps whole seconds (see landed.test.ts).
  const clock = fakeClock(new Date(Math.floor(Date.now() / 1000) * 1000 + 500).toISOString());
  const start = clock.now().getTime();
  const inDays = (days: number) => new Date(start + days * DAY_MS);
  sim = await startSimulator({
    now: clock.now,
    completionDelayMs: COMPLETION_MS,
    hosting: { faults },
    certificates: [
      {
        certificateName: "kv-landed",
        rootDomain: "api.vault-landed.test",
        target: KV,
        keyVaultName: "kv-landed",
        expiryDate: inDays(5),
      },
      {
        certificateName: "kv-kept",
        rootDomain: "mail.vault-landed.test",
        target: KV,
        keyVaultName: "kv-landed",
        expiryDate: inDays(12),
      },
    ],
  });
  const hosting = sim.hosting as Hosting;
  const inventory = memoryInventory();
  const ledger = memoryLedger();
  runtime = runtimeFor(sim, {}, { now: clock.now, inventory, ledger });
  const { log, lines } = collectingLogger();
  await sweep(runtime, log, { trigger: "timer" });
  const rt = runtime;
  // The sandbox's routing, as `certsched sandbox` prints it: vault hosts first, then the rest.
  const settings = loadVerifySettings({
    CERTSCHED_VERIFY_CONNECT_TO: sandboxSettings(sim).CERTSCHED_VERIFY_CONNECT_TO,
    CERTSCHED_HTTP_TIMEOUT: "10s",
  });
  const verify = async (): Promise<Record<string, InventoryResult>> => {
    const run = await verifyInventory(rt, log, {
      trigger: "timer",
      settings,
      // Trust the simulator's CA for the vault's HTTPS, as NODE_EXTRA_CA_CERTS does in the sandbox.
      keyVault: { clientOptions: { tlsOptions: { ca: hosting.caPem } } },
    });
    // The vault's word only: the rootDomains are probed too, judged elsewhere.
    const vaults = run.results.filter((r) => r.source === "keyvault");
    return Object.fromEntries(vaults.map((r) => [r.certificateName ?? r.domain, r]));
  };
  return { sim, hosting, clock, start, inDays, verify, lines };
}

const whole = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000).toISOString();
const statusOf = (results: Record<string, InventoryResult>) =>
  Object.fromEntries(Object.entries(results).map(([name, r]) => [name, r.status]));

describe("sweep -> pending -> ok / not-landed, through the simulator's vault", () => {
  it("pending while the service completes the renewal, then ok with the new version current", async () => {
    const { sim: s, hosting, clock, inDays, verify, lines } = await sweptWith();

    const right = await verify();
    clock.advance(COMPLETION_MS);
    const landed = await verify();

    expect(statusOf(right)).toEqual({ "kv-landed": "pending", "kv-kept": "pending" });
    expect(right["kv-landed"]).toMatchObject({
      domain: "kv-landed/kv-landed",
      source: "keyvault",
      servedNotAfter: whole(inDays(5)),
    });
    expect(right["kv-landed"]?.detail).toContain("waiting up to 2 h (CERTSCHED_VERIFY_WINDOW)");
    expect(statusOf(landed)).toEqual({ "kv-landed": "ok", "kv-kept": "ok" });
    const renewed = s.certificates().find((c) => c.certificateName === "kv-landed");
    expect(landed["kv-landed"]?.servedNotAfter).toBe(whole(renewed?.expiryDate ?? new Date(0)));
    expect(landed["kv-landed"]?.daysLeft).toBe(89);
    // The new version was installed beside the old one, under the certificate's name.
    const versions = hosting.vault.versions("kv-landed", "kv-landed");
    expect(versions).toHaveLength(2);
    expect(new Date(new X509Certificate(versions[1]?.der ?? Buffer.alloc(0)).validTo)).toEqual(
      new Date(whole(renewed?.expiryDate ?? new Date(0))),
    );
    // Every read reached the simulator's vault by its own host name, never a real one.
    const reads = hosting.vault.requests.filter((r) => r.authorized);
    expect(reads.length).toBeGreaterThanOrEqual(4);
    expect(new Set(reads.map((r) => `${r.host} ${r.servername}`))).toEqual(
      new Set(["kv-landed.vault.azure.net kv-landed.vault.azure.net"]),
    );
    const texts = [JSON.stringify([right, landed]), ...lines.map((l) => l.message)];
    expect(leaksIn(s, texts)).toEqual([]);
  });

  it("keep-old-version: pending until the window passes (pinned at its last millisecond), not-landed from then on", async () => {
    const {
      sim: s,
      hosting,
      clock,
      start,
      inDays,
      verify,
      lines,
    } = await sweptWith({
      "kv-kept": "keep-old-version",
    });

    clock.advance(COMPLETION_MS);
    const completed = await verify();
    clock.set(new Date(start + WINDOW_MS - 1));
    const lastPending = await verify();
    clock.set(new Date(start + WINDOW_MS));
    const late = await verify();

    // The service completed the renewal: the record has its new expiry...
    const record = s.certificates().find((c) => c.certificateName === "kv-kept");
    expect(record?.expiryDate.getTime()).toBeGreaterThan(inDays(80).getTime());
    // ...but the vault's current version is still the old one.
    expect(hosting.vault.versions("kv-landed", "kv-kept")).toHaveLength(1);
    expect(statusOf(completed)).toEqual({ "kv-landed": "ok", "kv-kept": "pending" });
    expect(statusOf(lastPending)).toEqual({ "kv-landed": "ok", "kv-kept": "pending" });
    expect(statusOf(late)).toEqual({ "kv-landed": "ok", "kv-kept": "not-landed" });
    expect(late["kv-kept"]).toMatchObject({
      domain: "kv-landed/kv-kept",
      source: "keyvault",
      servedNotAfter: whole(inDays(12)),
      detail: `renewal accepted at ${new Date(start).toISOString()}, more than 2 h ago (CERTSCHED_VERIFY_WINDOW), but the vault's current version still expires at ${whole(inDays(12))}, no later than before the renewal (${inDays(12).toISOString()})`,
    });
    const texts = [JSON.stringify([completed, late]), ...lines.map((l) => l.message)];
    expect(leaksIn(s, texts)).toEqual([]);
  });

  it("keep-old-version cleared (the new version reached the vault): the same check says ok", async () => {
    const { hosting, clock, start, verify } = await sweptWith({ "kv-kept": "keep-old-version" });

    clock.set(new Date(start + WINDOW_MS));
    const before = await verify();
    hosting.clearFaults("kv-kept");
    const after = await verify();

    expect(before["kv-kept"]?.status).toBe("not-landed");
    expect(after["kv-kept"]?.status).toBe("ok");
    expect(hosting.vault.versions("kv-landed", "kv-kept")).toHaveLength(2);
  });
});
