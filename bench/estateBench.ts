import { memoryEstateStore } from "../shared/adapters/storage/memory/memoryEstate.js";
import { loadSettings } from "../shared/app/config/settings.js";
import { createAccountPorts } from "../shared/app/services.js";
import { memoryInventory } from "../shared/core/ports/inventory.js";
import { discoverEstate } from "../shared/usecases/estate/discoverEstate.js";
import { HostingCa } from "../sim/hosting/hostingCa.js";
import {
  type Hosting,
  type Simulator,
  sandboxSettings,
  startArm,
  startSimulator,
  type VaultEstate,
} from "../sim/index.js";
import type { Gate, Section } from "./report.js";
import { formatMs } from "./stats.js";

/**
 * Estate discovery at the size the goal names: 10,000 certificates across 50 subscriptions, in
 * the simulator's Resource Manager (Resource Graph, its quota of 15 queries per 5 s included)
 * and vault (every vault listed, every certificate's policy read), over loopback TLS, through
 * the use case the timer runs. Per subscription: 120 App Service certificates bound to sites,
 * 40 gateway listeners' certificates from vault secrets, 2 vaults of 40 certificates each (40
 * used by the gateways, 40 by nothing).
 */

export interface EstateBenchOptions {
  readonly subscriptions: number;
  readonly progress: (line: string) => void;
}

/** The function timeout (host.json): the timer's run must end well within it. */
const FUNCTION_TIMEOUT_MS = 10 * 60_000;
const DAY_MS = 86_400_000;

const sub = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
const thumb = (s: string) =>
  Buffer.from(s).toString("hex").padEnd(40, "0").slice(0, 40).toUpperCase();

function seed(
  arm: Awaited<ReturnType<typeof startArm>>,
  vault: VaultEstate,
  subscriptions: number,
) {
  const now = Date.now();
  const at = (days: number) => new Date(now + days * DAY_MS);
  for (let s = 0; s < subscriptions; s++) {
    const subscriptionId = sub(s);
    for (let c = 0; c < 120; c++) {
      const name = `app-${s}-${c}`;
      const host = `${name}.contoso.example`;
      const thumbprint = thumb(name);
      const placed = { subscriptionId, resourceGroup: "rg-web" };
      arm.estate.addAppServiceCertificate({
        ...placed,
        name,
        thumbprint,
        expiresAt: at(5 + (c % 300)),
        hostNames: [host],
      });
      arm.estate.addSite({
        ...placed,
        name: `site-${s}-${c}`,
        bindings: [{ hostName: host, thumbprint }],
      });
    }
    for (let v = 0; v < 2; v++) {
      const vaultName = `kv-b${s}-${v}`;
      arm.estate.addVault({ subscriptionId, resourceGroup: "rg-kv", name: vaultName });
      for (let c = 0; c < 40; c++) {
        vault.addForeign(vaultName, `cert-${c}`, {
          notBefore: at(-300),
          notAfter: at(1 + (c % 90)),
          autoRenew: c % 2 === 0,
        });
      }
    }
    const certificates = Array.from({ length: 40 }, (_, c) => ({
      name: `gw-${c}`,
      keyVaultSecretId: `https://kv-b${s}-0.vault.azure.net/secrets/cert-${c}`,
    }));
    const listeners = certificates.map((c, i) => ({
      name: `l-${i}`,
      hostName: `gw${i}.s${s}.contoso.example`,
      certificate: c.name,
    }));
    arm.estate.addGateway({
      subscriptionId,
      resourceGroup: "rg-net",
      name: `agw-${s}`,
      certificates,
      listeners,
    });
  }
}

export async function estateBench(
  options: EstateBenchOptions,
): Promise<{ section: Section; gate: Gate }> {
  const sim: Simulator = await startSimulator({ hosting: {} });
  const ca = await HostingCa.create(new Date());
  const leaf = ca.issue(["127.0.0.1", "localhost"], {
    notBefore: new Date(Date.now() - DAY_MS),
    notAfter: new Date(Date.now() + DAY_MS),
  });
  const arm = await startArm({
    ...leaf,
    acceptToken: (token) => sim.issuedTokens().includes(token),
  });
  const hosting = sim.hosting as Hosting;
  const vault = (hosting.vault as unknown as { estate: VaultEstate }).estate;
  try {
    options.progress(`estate: seeding ${options.subscriptions} subscriptions`);
    seed(arm, vault, options.subscriptions);
    const settings = loadSettings({ ...sandboxSettings(sim), CERTSCHED_ARM_URL: arm.url });
    const ports = createAccountPorts(settings, {
      armCa: ca.certPem,
      estate: memoryEstateStore(),
      inventory: memoryInventory(),
    });
    const keyVault = { clientOptions: { tlsOptions: { ca: hosting.caPem } } };
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 50);
    const started = performance.now();
    const quiet = { info: () => {}, warn: () => {}, error: () => {} };
    const run = await discoverEstate(ports, quiet, { trigger: "timer", keep: true, keyVault });
    const tookMs = performance.now() - started;
    clearInterval(sampler);
    await ports.close();
    const { certificates } = run.report.counts;
    const ok = tookMs < FUNCTION_TIMEOUT_MS && run.report.problems.length === 0;
    const rows = [
      { measure: "certificates in the report", value: String(certificates) },
      {
        measure: "problems (parts not read)",
        value: String(run.report.problems.length),
        goal: "0",
        met: run.report.problems.length === 0,
      },
      {
        measure: "discovery, end to end (the timer's use case)",
        value: formatMs(tookMs),
        goal: `< ${formatMs(FUNCTION_TIMEOUT_MS)} (function timeout)`,
        met: ok,
      },
      {
        measure: "share of the function timeout",
        value: `${((tookMs / FUNCTION_TIMEOUT_MS) * 100).toFixed(1)} %`,
      },
      {
        measure: "peak RSS of the process during discovery",
        value: `${Math.round(peak / 1024 / 1024)} MB`,
      },
    ];
    return {
      section: {
        title: `Estate discovery: ${certificates} certificates across ${options.subscriptions} subscriptions`,
        rows,
        notes: [
          "The simulator's Resource Manager answers Resource Graph a page of 1,000 rows at a time with its per-user quota (15 queries per 5 s); its vault lists 25 certificates a page and answers each policy; everything crosses loopback TLS. The run is the timer's: keep on, the report stored in memory.",
        ],
      },
      gate: { name: "estate discovery within the function timeout", ok, detail: formatMs(tookMs) },
    };
  } finally {
    await arm.close();
    await sim.close();
  }
}
