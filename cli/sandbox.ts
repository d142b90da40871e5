import { probeTls } from "../shared/adapters/probes/tlsProbe.js";
import { loadSettings } from "../shared/app/config/settings.js";
import { loadVerifySettings } from "../shared/app/config/verifySettings.js";
import { probeKeyVault } from "../shared/app/probes.js";
import { createRuntime } from "../shared/app/services.js";
import { type Ledger, memoryLedger } from "../shared/core/ports/ledger.js";
import type { SweepSummary } from "../shared/core/renewal/summary.js";
import { parseEndpoint } from "../shared/core/verification/endpoint.js";
import {
  countInventoryStatuses,
  failsRun,
  type InventoryResult,
} from "../shared/core/verification/inventoryResult.js";
import type { AcceptedRenewal } from "../shared/core/verification/judge.js";
import type { VerifyTarget } from "../shared/core/verification/targets.js";
import { verifyTargets } from "../shared/usecases/verifyDomains.js";
import type { Hosting, Simulator } from "../sim/index.js";
import {
  SAMPLE_NOT_LANDED,
  SAMPLE_REFUSAL,
  SANDBOX_CREDENTIALS,
  sampleCertificates,
  sandboxSettings,
  startSimulator,
} from "../sim/index.js";
import { renderResults } from "./commands/verify.js";
import type { Palette } from "./output/color.js";
import { wrapToWidth } from "./output/text.js";

/** The built-in simulator, seeded with the sample certificates, and the settings that reach it. */
export interface Sandbox {
  readonly sim: Simulator;
  /** The simulator's hosting side: a TLS endpoint serving each App Service sample certificate. */
  readonly hosting: Hosting;
  /** CERTSCHED_* settings pointing at the simulator (its own throwaway credentials). */
  readonly settings: Record<string, string>;
  /** The sandbox sweep's renewal ledger (in memory): verification reads the accepted renewals. */
  readonly ledger: Ledger;
  close(): Promise<void>;
}

export async function startSandbox(options: { port?: number } = {}): Promise<Sandbox> {
  const sim = await startSimulator({
    ...SANDBOX_CREDENTIALS,
    certificates: sampleCertificates(new Date()),
    ...(options.port === undefined ? {} : { port: options.port }),
    // Staged: the service renews this one, the site keeps serving the old certificate.
    hosting: { faults: { [SAMPLE_NOT_LANDED]: "keep-old-certificate" } },
  });
  return {
    sim,
    hosting: sim.hosting as Hosting,
    settings: sandboxSettings(sim),
    ledger: memoryLedger(),
    close: () => sim.close(),
  };
}

/**
 * The paragraphs that say plainly this is not a real account, and how to reach the real one;
 * the caller wraps them to the terminal.
 */
export function sandboxBanner(sandbox: Sandbox, paint: Palette): string[] {
  const count = sandbox.sim.certificates().length;
  return [
    paint.bold("=== certsched SANDBOX ==="),
    `This is the sandbox: a built-in simulator of the Certificate Scheduling Service at ${sandbox.sim.baseUrl}, seeded with ${count} sample certificates. No real account is touched.`,
    'To use the real service, set CERTSCHED_BASE_URL, CERTSCHED_SUBSCRIPTION, CERTSCHED_TENANT_ID, CERTSCHED_CLIENT_ID and CERTSCHED_CLIENT_SECRET (or CERTSCHED_KEY_VAULT_URL) in the environment or in the "Values" of local.settings.json, then run: npx certsched sweep',
    "(npm start sweeps the real service when CERTSCHED_BASE_URL is set.) See docs/cli.md.",
    "The dashboard page (GET /api/dashboard) of a sandbox: npx certsched sandbox --dashboard keeps one up, sweeps and verifies it once, and prints the page's URL on 127.0.0.1. See docs/dashboard.md.",
    "",
  ];
}

/** Names of the certificates whose failure the sandbox stages on purpose. */
export function stagedFailures(summary: SweepSummary): string[] {
  return summary.results
    .filter((r) => r.outcome === "failed" && r.detail.includes(SAMPLE_REFUSAL))
    .map((r) => r.certificateName);
}

/**
 * True when a failed sandbox sweep failed only because of the staged refusal: that is the
 * demo working. Anything else (a list failure, another failure, a stuck certificate) is real.
 */
export function onlyStagedFailures(summary: SweepSummary): boolean {
  const staged = stagedFailures(summary).length;
  return (
    summary.listError === undefined &&
    summary.rejected.length === 0 &&
    summary.ledger !== "unavailable" &&
    summary.counts.stuck === 0 &&
    summary.counts.failed === staged
  );
}

/** The verification the sandbox runs after its sweep, and whether it went as staged. */
export interface SandboxVerification {
  /** App Service domains (source tls), then Key Vault certificates (source keyvault). */
  readonly results: InventoryResult[];
  readonly counts: Readonly<Record<string, number>>;
  /** How far ahead of the sweep the verification looked (CERTSCHED_VERIFY_WINDOW), in ms. */
  readonly aheadMs: number;
  /** Certificates `not-landed` on purpose (the staged keep-old-certificate fault). */
  readonly staged: string[];
  /** True when nothing but the staged result needs a person. */
  readonly passes: boolean;
  /** Certificates `expiring` because the simulator refuses their renewal on purpose. */
  readonly refusedExpiring: string[];
}

/** The renewal the ledger recorded as accepted, as verification takes it; else undefined. */
async function acceptedRenewal(ledger: Ledger, id: number): Promise<AcceptedRenewal | undefined> {
  const record = (await ledger.read(id))?.record;
  if (record === undefined || record.lastRequestedAt === undefined) return undefined;
  if (record.outcome !== "renewal-scheduled" && record.outcome !== "stuck") return undefined;
  // The ledger keeps when the request left, a moment before the answer: a window that starts
  // that moment earlier is the stricter one.
  return { acceptedAt: record.lastRequestedAt, expiryAtRequest: record.expiryAtRequest };
}

/**
 * After the sandbox sweep: verifies what each App Service sample certificate's domain serves on
 * the simulator's hosting endpoint, and what the simulator's vault holds for each Key Vault
 * sample certificate (read with the sandbox's own vault token), both through the sandbox's
 * CERTSCHED_VERIFY_CONNECT_TO and trusting only its throwaway CA, as the verification timer
 * would once CERTSCHED_VERIFY_WINDOW has passed: the clock of this run is that window ahead, so
 * every renewal has landed but the staged one.
 */
export async function verifySandbox(sandbox: Sandbox): Promise<SandboxVerification> {
  const settings = loadVerifySettings({
    // Vault hosts to the simulator's vault, every other name to its hosting endpoint: nothing,
    // and no vault token, ever goes to a real host.
    CERTSCHED_VERIFY_CONNECT_TO:
      sandbox.settings.CERTSCHED_VERIFY_CONNECT_TO ?? sandbox.hosting.connectTo,
    CERTSCHED_HTTP_TIMEOUT: "10s",
  });
  const aheadMs = settings.windowMs;
  const now = () => new Date(Date.now() + aheadMs);
  const targets: VerifyTarget[] = [];
  const vaulted: { keyVaultName: string; certificateName: string; id: number }[] = [];
  for (const cert of sandbox.sim.certificates()) {
    if (cert.target === "Cloud Key Vault + DNS" && cert.keyVaultName) {
      vaulted.push({
        keyVaultName: cert.keyVaultName,
        certificateName: cert.certificateName,
        id: cert.id,
      });
      continue;
    }
    if (cert.target !== "Cloud App Service" || cert.rootDomain === null) continue;
    const endpoint = parseEndpoint(cert.rootDomain);
    if (typeof endpoint === "string") continue;
    const renewal = await acceptedRenewal(sandbox.ledger, cert.id);
    targets.push({
      endpoint,
      certificateName: cert.certificateName,
      ...(renewal ? { renewal } : {}),
      // The simulator's names are the service's: probed as production probes them, only where
      // the sandbox's CERTSCHED_VERIFY_CONNECT_TO (the operator's word) sends them.
      publicOnly: true,
    });
  }
  const results: InventoryResult[] = await verifyTargets(targets, {
    probes: { tls: probeTls },
    settings,
    now,
    ca: [sandbox.hosting.caPem],
  });
  // The vault token comes from the simulator's identity provider, through certsched's own token
  // cache: the sandbox's settings, whatever the environment says.
  const runtime = createRuntime(loadSettings(sandbox.settings), { ledger: sandbox.ledger });
  try {
    for (const cert of vaulted) {
      const renewal = await acceptedRenewal(sandbox.ledger, cert.id);
      results.push(
        await probeKeyVault(
          { keyVaultName: cert.keyVaultName, certificateName: cert.certificateName, renewal },
          {
            tokens: runtime.tokens,
            vaultResource: runtime.settings.vaultResource,
            settings,
            now,
            // In this process NODE_EXTRA_CA_CERTS is not set: trust the CA here, as the TLS probes do.
            seam: { clientOptions: { tlsOptions: { ca: sandbox.hosting.caPem } } },
          },
        ),
      );
    }
  } finally {
    await runtime.close();
  }
  const staged = results
    .filter((r) => r.status === "not-landed" && r.certificateName === SAMPLE_NOT_LANDED)
    .map((r) => r.certificateName ?? r.domain);
  // No earlier failure is recorded in the sandbox, so there is no grace: unreachable is bad.
  const bad = (r: InventoryResult) => failsRun(r) || r.status === "unreachable";
  const passes = results.every(
    (r) => !bad(r) || (r.status === "not-landed" && r.certificateName === SAMPLE_NOT_LANDED),
  );
  const refused = new Set(
    sandbox.sim
      .certificates()
      .filter((c) => c.refuseRenewal === SAMPLE_REFUSAL)
      .map((c) => c.certificateName),
  );
  const refusedExpiring = results
    .filter((r) => r.status === "expiring" && refused.has(r.certificateName ?? ""))
    .map((r) => r.certificateName ?? r.domain);
  return {
    results,
    counts: countInventoryStatuses(results),
    aheadMs,
    staged,
    passes,
    refusedExpiring,
  };
}

/** The verification table under its heading, then why the staged result is expected. */
export function renderSandboxVerification(
  verification: SandboxVerification,
  paint: Palette,
  width: number | undefined,
): string[] {
  const hours = verification.aheadMs / 3_600_000;
  const lines = [
    "",
    ...wrapToWidth(
      `${paint.bold("Verification")}, as certsched verify sees it ${hours} h after the sweep (CERTSCHED_VERIFY_WINDOW): what each App Service domain serves on the simulator's hosting endpoint, and the current version of each Key Vault certificate in the simulator's vault.`,
      width ?? 80,
    ),
    "",
    ...renderResults(verification.results, paint, width),
  ];
  if (verification.staged.length > 0) {
    const names = verification.staged.join(", ");
    const note = `${paint.bold("Expected in the sandbox:")} the service renewed ${names}, but the simulator's hosting endpoint keeps serving the old certificate on purpose, to show what "renewed, but the site still serves the old certificate" looks like. Against a real service not-landed makes certsched verify exit with code 1; here it is part of the demo${verification.passes ? ", so the exit code is 0" : ""}.`;
    lines.push("", ...wrapToWidth(note, width ?? 80));
  }
  if (verification.refusedExpiring.length > 0) {
    const names = verification.refusedExpiring.join(", ");
    const note = `${names} is expiring because the simulator refuses its renewal on purpose (the staged failure above): nothing renewed it, so the vault still holds the old version.`;
    lines.push("", ...wrapToWidth(note, width ?? 80));
  }
  return lines;
}
