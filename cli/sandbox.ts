import { probeTls } from "../shared/adapters/probes/tlsProbe.js";
import { loadSettings } from "../shared/app/config/settings.js";
import { loadVerifySettings } from "../shared/app/config/verifySettings.js";
import { probeKeyVault } from "../shared/app/probes.js";
import type { Seams } from "../shared/app/seams.js";
import { createServices, type Services } from "../shared/app/services.js";
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
import type { RenewalCalendar } from "../shared/core/windows/calendar.js";
import { verifyTargets } from "../shared/usecases/verifyDomains.js";
import type { Hosting, SandboxPreflight, Simulator } from "../sim/index.js";
import {
  SAMPLE_NOT_LANDED,
  SAMPLE_REFUSAL,
  startSandboxPreflight,
  startSimulator,
} from "../sim/index.js";
import { sandboxAccounts, sandboxAccountsSettings, sandboxConnectTo } from "../sim/sandbox.js";
import { type SandboxAri, startSandboxAri } from "../sim/sandboxAri.js";
import { SANDBOX_ESTATE_ACCOUNT, seedSandboxEstate } from "../sim/sandboxEstate.js";
import { stageNotSynced } from "../sim/sandboxSync.js";
import { renderResults } from "./commands/verify.js";
import type { Palette } from "./output/color.js";
import { wrapToWidth } from "./output/text.js";
import { notSyncedNote, stagedNotSynced, verifyVaultDomains } from "./sandboxSync.js";
import { sandboxCalendars, withCalendars } from "./sandboxWindows.js";

/** One account of the sandbox: its own simulator, hosting side and in-memory ledger. */
export interface SandboxAccount {
  readonly name: string;
  readonly sim: Simulator;
  /** The simulator's hosting side: a TLS endpoint serving each App Service sample certificate. */
  readonly hosting: Hosting;
  /**
   * This account's CERTSCHED_VERIFY_CONNECT_TO: its vault's host to its simulator's vault, every
   * other name to its own hosting endpoint.
   */
  readonly connectTo: string;
  /** The sandbox sweep's renewal ledger for this account (in memory). */
  readonly ledger: Ledger;
}

/**
 * The built-in simulators, one per sandbox account ("contoso", "fabrikam"), each seeded with
 * its sample certificates and its own throwaway credentials, and the settings that reach them.
 */
export interface Sandbox {
  /** In declaration order: "contoso" first. */
  readonly accounts: readonly SandboxAccount[];
  /** An account by name; throws for a name the sandbox does not have. */
  account(name: string): SandboxAccount;
  /**
   * CERTSCHED_ACCOUNTS (inline JSON) declaring both accounts, and one
   * CERTSCHED_VERIFY_CONNECT_TO for both simulators' hosting sides: none of the single-account
   * settings.
   */
  readonly settings: Record<string, string>;
  /** Seams.ledger: each account's own in-memory ledger. */
  ledger(account: string): Ledger;
  /** What preflight talks to: the sandbox's ARM and DNS server, both accounts'. */
  readonly preflight: SandboxPreflight;
  /** The hosting CA's ACME directory with renewalInfo (ARI): sim/acme. */
  readonly ari: SandboxAri;
  /**
   * Each account's renewal calendar, as the sandbox declares it (cli/sandboxWindows.ts):
   * contoso's holds one certificate waiting for its window and renews one outside it.
   */
  readonly calendars: Readonly<Record<string, RenewalCalendar>>;
  /** Every account's throwaway API key and client secret (never printed by a sweep). */
  secrets(): string[];
  close(): Promise<void>;
}

/**
 * Starts one simulator per sandbox account. `port` is the first account's simulator's (the
 * others take free ones).
 */
export async function startSandbox(options: { port?: number } = {}): Promise<Sandbox> {
  const accounts: SandboxAccount[] = [];
  const specs = sandboxAccounts(new Date());
  let preflight: SandboxPreflight;
  let ari: SandboxAri;
  try {
    for (const [index, spec] of specs.entries()) {
      const sim = await startSimulator({
        ...spec.options,
        ...(index === 0 && options.port !== undefined ? { port: options.port } : {}),
        hosting: { faults: spec.faults },
      });
      stageNotSynced(sim);
      const hosting = sim.hosting as Hosting;
      accounts.push({
        name: spec.name,
        sim,
        hosting,
        connectTo: sandboxConnectTo(hosting),
        ledger: memoryLedger(),
      });
    }
    preflight = await startSandboxPreflight(
      accounts.map((a, i) => ({ sim: a.sim, seeds: specs[i]?.options.certificates ?? [] })),
    );
    // The estate's foreign vault is seeded before the vault hosts are routed, so it is routed too.
    const estateAt = accounts.findIndex((a) => a.name === SANDBOX_ESTATE_ACCOUNT);
    const estateAccount = accounts[estateAt];
    if (estateAccount) {
      seedSandboxEstate(estateAccount.sim, preflight.arm);
      accounts[estateAt] = { ...estateAccount, connectTo: sandboxConnectTo(estateAccount.hosting) };
    }
    ari = await startSandboxAri().catch(async (error: unknown) => {
      await preflight.close();
      throw error;
    });
  } catch (error) {
    await Promise.all(accounts.map((a) => a.sim.close()));
    throw error;
  }
  const account = (name: string): SandboxAccount => {
    const found = accounts.find((a) => a.name === name);
    if (!found) throw new Error(`the sandbox has no account ${name}`);
    return found;
  };
  return {
    accounts,
    account,
    settings: { ...sandboxAccountsSettings(accounts), ...preflight.settings, ...ari.settings },
    ledger: (name) => account(name).ledger,
    calendars: sandboxCalendars(new Date()),
    preflight,
    ari,
    secrets: () => accounts.flatMap((a) => [a.sim.options.apiKey, a.sim.options.clientSecret]),
    close: async () => {
      await preflight.close();
      await ari.close();
      await Promise.all(accounts.map((a) => a.sim.close()));
    },
  };
}

/** The sandbox's composition: its own settings (whatever the environment says), its ledgers. */
export function sandboxServices(sandbox: Sandbox, seams: Seams = {}): Services {
  return createServices(withCalendars(loadSettings(sandbox.settings), sandbox.calendars), {
    ledger: (name) => sandbox.ledger(name),
    // The sandbox's ARM: this process did not start with NODE_EXTRA_CA_CERTS naming its CA.
    armCa: sandbox.preflight.caPem,
    ariCa: sandbox.ari.caPem,
    ...seams,
  });
}

/**
 * The paragraphs that say plainly these are not real accounts, and how to reach the real ones;
 * the caller wraps them to the terminal.
 */
export function sandboxBanner(sandbox: Sandbox, paint: Palette): string[] {
  const count = sandbox.accounts.reduce((n, a) => n + a.sim.certificates().length, 0);
  const each = sandbox.accounts
    .map((a) => `${a.name} at ${a.sim.baseUrl} (${a.sim.certificates().length} certificates)`)
    .join(" and ");
  return [
    paint.bold("=== certsched SANDBOX ==="),
    `This is the sandbox: built-in simulators of the Certificate Scheduling Service, one per account, ${sandbox.accounts.length} accounts declared in CERTSCHED_ACCOUNTS: ${each}, seeded with ${count} sample certificates, each account with its own throwaway credentials. No real account is touched.`,
    'To use the real service, set CERTSCHED_BASE_URL, CERTSCHED_SUBSCRIPTION, CERTSCHED_TENANT_ID, CERTSCHED_CLIENT_ID and CERTSCHED_CLIENT_SECRET (or CERTSCHED_KEY_VAULT_URL) in the environment or in the "Values" of local.settings.json, then run: npx certsched sweep',
    "For several accounts, declare them instead in CERTSCHED_ACCOUNTS (a JSON array, as this sandbox does) or in the file CERTSCHED_ACCOUNTS_FILE names. See docs/accounts.md.",
    "(npm start sweeps the real service when CERTSCHED_BASE_URL is set.) See docs/cli.md.",
    "The dashboard page (GET /api/dashboard) of a sandbox: npx certsched sandbox --dashboard keeps one page per account up, sweeps and verifies each account once, and prints each page's URL on 127.0.0.1. See docs/dashboard.md.",
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

/** The verification the sandbox runs after its sweep, for one account, and whether it went as staged. */
export interface SandboxVerification {
  /** The account verified. */
  readonly account: string;
  /** App Service domains (source tls), then Key Vault certificates (source keyvault). */
  readonly results: InventoryResult[];
  readonly counts: Readonly<Record<string, number>>;
  /** How far ahead of the sweep the verification looked (CERTSCHED_VERIFY_WINDOW), in ms. */
  readonly aheadMs: number;
  /** Certificates `not-landed` on purpose (the staged keep-old-certificate fault). */
  readonly staged: string[];
  /** Domains `not-synced` on purpose (sim/sandboxSync.ts: a vault consumer that lags). */
  readonly notSynced: string[];
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

/** What the sandbox verifies of one account, and the clock and settings it verifies with. */
interface VerifyPlan {
  readonly settings: ReturnType<typeof loadVerifySettings>;
  /** How far ahead of the sweep the verification looks (CERTSCHED_VERIFY_WINDOW), in ms. */
  readonly aheadMs: number;
  readonly now: () => Date;
  /** Each App Service sample certificate's domain, probed over TLS. */
  readonly targets: VerifyTarget[];
  /** Each Key Vault sample certificate, read from the account's vault. */
  readonly vaulted: { keyVaultName: string; certificateName: string; id: number }[];
}

/**
 * After the sandbox sweep, for one account (default the first): verifies what each of its App
 * Service sample certificates' domains serves on its simulator's hosting endpoint, and what its
 * simulator's vault holds for each Key Vault sample certificate (read with that account's own
 * vault token), both through the account's own connect-to and trusting only its simulator's
 * throwaway CA, as the verification timer would once CERTSCHED_VERIFY_WINDOW has passed: the
 * clock of this run is that window ahead, so every renewal has landed but the staged one.
 */
export async function verifySandbox(
  sandbox: Sandbox,
  name: string = sandbox.accounts[0]?.name ?? "",
): Promise<SandboxVerification> {
  const account = sandbox.account(name);
  const plan = await verifyPlan(account);
  const results: InventoryResult[] = await verifyTargets(plan.targets, {
    probes: { tls: probeTls },
    settings: plan.settings,
    now: plan.now,
    ca: [account.hosting.caPem],
  });
  results.push(...(await verifyVaults(sandbox, account, plan)));
  return judgeVerification(account, results, plan.aheadMs);
}

/** The account's sample certificates as verification targets, on a clock the window ahead. */
async function verifyPlan(account: SandboxAccount): Promise<VerifyPlan> {
  const settings = loadVerifySettings({
    // Vault hosts to this account's vault, every other name to its hosting endpoint: nothing,
    // and no vault token, ever goes to a real host or to another account's simulator.
    CERTSCHED_VERIFY_CONNECT_TO: account.connectTo,
    CERTSCHED_HTTP_TIMEOUT: "10s",
  });
  const aheadMs = settings.windowMs;
  const targets: VerifyTarget[] = [];
  const vaulted: VerifyPlan["vaulted"] = [];
  for (const cert of account.sim.certificates()) {
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
    const renewal = await acceptedRenewal(account.ledger, cert.id);
    targets.push({
      endpoint,
      certificateName: cert.certificateName,
      ...(renewal ? { renewal } : {}),
      // The simulator's names are the service's: probed as production probes them, only where
      // the sandbox's connect-to (the operator's word) sends them.
      publicOnly: true,
    });
  }
  return { settings, aheadMs, now: () => new Date(Date.now() + aheadMs), targets, vaulted };
}

/**
 * Each Key Vault sample certificate as the account's vault holds it, then the domains that serve
 * them compared with the vault. The vault token comes from this account's simulator's identity
 * provider, through certsched's own token cache for this account: the sandbox's settings,
 * whatever the environment says.
 */
async function verifyVaults(
  sandbox: Sandbox,
  account: SandboxAccount,
  plan: VerifyPlan,
): Promise<InventoryResult[]> {
  const { settings, now } = plan;
  const results: InventoryResult[] = [];
  const services = sandboxServices(sandbox);
  try {
    const runtime = services.forAccount(account.name);
    for (const cert of plan.vaulted) {
      const renewal = await acceptedRenewal(account.ledger, cert.id);
      results.push(
        await probeKeyVault(
          { keyVaultName: cert.keyVaultName, certificateName: cert.certificateName, renewal },
          {
            tokens: runtime.tokens,
            vaultResource: runtime.settings.vaultResource,
            settings,
            now,
            // In this process NODE_EXTRA_CA_CERTS is not set: trust the CA here, as the TLS probes do.
            seam: { clientOptions: { tlsOptions: { ca: account.hosting.caPem } } },
          },
        ),
      );
    }
    // The domains that serve the Key Vault certificates, compared with the vault.
    results.push(
      ...(await verifyVaultDomains({
        sim: account.sim,
        hosting: account.hosting,
        tokens: runtime.tokens,
        vaultResource: runtime.settings.vaultResource,
        settings,
        now,
        renewalOf: (id) => acceptedRenewal(account.ledger, id),
      })),
    );
  } finally {
    await services.close();
  }
  return results;
}

/** Which results the sandbox staged, and whether nothing else needs a person. */
function judgeVerification(
  account: SandboxAccount,
  results: InventoryResult[],
  aheadMs: number,
): SandboxVerification {
  const staged = results
    .filter((r) => r.status === "not-landed" && r.certificateName === SAMPLE_NOT_LANDED)
    .map((r) => r.certificateName ?? r.domain);
  // No earlier failure is recorded in the sandbox, so there is no grace: unreachable is bad.
  const bad = (r: InventoryResult) => failsRun(r) || r.status === "unreachable";
  const notSynced = stagedNotSynced(results);
  const passes = results.every(
    (r) =>
      !bad(r) ||
      (r.status === "not-landed" && r.certificateName === SAMPLE_NOT_LANDED) ||
      (r.status === "not-synced" && notSynced.includes(r.domain)),
  );
  return {
    account: account.name,
    results,
    counts: countInventoryStatuses(results),
    aheadMs,
    staged,
    notSynced,
    passes,
    refusedExpiring: refusedExpiring(account, results),
  };
}

/**
 * The certificates `expiring` because the simulator refuses their renewal on purpose; its vault
 * and its domain are both expiring, named once.
 */
function refusedExpiring(account: SandboxAccount, results: InventoryResult[]): string[] {
  const refused = new Set(
    account.sim
      .certificates()
      .filter((c) => c.refuseRenewal === SAMPLE_REFUSAL)
      .map((c) => c.certificateName),
  );
  return [
    ...new Set(
      results
        .filter((r) => r.status === "expiring" && refused.has(r.certificateName ?? ""))
        .map((r) => r.certificateName ?? r.domain),
    ),
  ];
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
      `${paint.bold("Verification")}, as certsched verify sees it ${hours} h after the sweep (CERTSCHED_VERIFY_WINDOW): what each App Service domain serves on the simulator's hosting endpoint, the current version of each Key Vault certificate in the simulator's vault, and what each Key Vault certificate's domain serves, compared with it.`,
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
  lines.push(...notSyncedNote(verification.notSynced, verification.passes, paint, width));
  if (verification.refusedExpiring.length > 0) {
    const names = verification.refusedExpiring.join(", ");
    const note = `${names} is expiring because the simulator refuses its renewal on purpose (the staged failure above): nothing renewed it, so the vault still holds the old version.`;
    lines.push("", ...wrapToWidth(note, width ?? 80));
  }
  return lines;
}
