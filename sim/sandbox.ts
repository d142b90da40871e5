import type { SeedCertificate } from "./certificate.js";
import type { Hosting } from "./hosting/hosting.js";
import type { HostingFault } from "./hosting/hostingFaults.js";
import type { SimulatorOptions } from "./options.js";
import { SAMPLE_NOT_LANDED, sampleCertificates } from "./sampleCertificates.js";
import { notSyncedSample } from "./sandboxSync.js";
import type { Simulator } from "./simulator.js";

/**
 * The sandbox's own throwaway credentials (the first account's, "contoso"). Not words: certsched
 * redacts every secret it holds, and halves of a long one, wherever they appear, so a secret
 * like "sim-client-secret" would blank out the ordinary word "client-secret" in the sandbox's
 * output.
 */
export const SANDBOX_CREDENTIALS = {
  apiKey: "sandbox-key-4f1c9e72a0b3d865",
  clientSecret: "sandbox-secret-9b27e05d4c1f83a6",
} as const;

/**
 * The certificate name both sandbox accounts hold (a Key Vault certificate named "wildcard" in
 * each customer's own vault): names repeat across accounts, and each account renews its own.
 */
export const SAMPLE_SHARED_NAME = "wildcard";

/** The sandbox's accounts, in declaration order. */
export const SANDBOX_ACCOUNT_NAMES: readonly string[] = ["contoso", "fabrikam"];

/** One account of the sandbox: its simulator's options (credentials, seeds) and staged faults. */
export interface SandboxAccountSpec {
  /** The account's name in CERTSCHED_ACCOUNTS. */
  readonly name: string;
  /** The customer's DNS zone: the sample certificates of this zone are this account's. */
  readonly zone: string;
  /** The simulator's options: its own throwaway credentials, tenant, subscription, seeds. */
  readonly options: SimulatorOptions;
  /** Hosting faults staged on purpose, by certificate name. */
  readonly faults: Readonly<Record<string, HostingFault>>;
}

/**
 * The two accounts of the sandbox, as a managed-service provider would declare two customers:
 * "contoso" (the contoso.com samples, with the staged refusal and the staged not-landed) and
 * "fabrikam" (the fabrikam.com samples, all renewing), each with its own throwaway credentials,
 * tenant, app registration, subscription and Key Vault, and both with a certificate named
 * {@link SAMPLE_SHARED_NAME}.
 */
export function sandboxAccounts(now: Date): SandboxAccountSpec[] {
  const samples = [...sampleCertificates(now), notSyncedSample(now)];
  const account = (
    name: string,
    index: number,
    credentials: { apiKey: string; clientSecret: string },
    sharedInDays: number,
    faults: Readonly<Record<string, HostingFault>>,
  ): SandboxAccountSpec => {
    const zone = `${name}.com`;
    const vault = `kv-${name}`;
    const own = samples
      .filter((c) => c.rootDomain?.endsWith(`.${zone}`))
      .map((c) => (c.keyVaultName ? { ...c, keyVaultName: vault } : c));
    const shared: SeedCertificate = {
      certificateName: SAMPLE_SHARED_NAME,
      rootDomain: zone,
      target: "Cloud Key Vault + DNS",
      challengeType: "dns",
      dnsZoneResourceGroup: "rg-dns",
      keyVaultName: vault,
      cloudSubscriptionId: own[0]?.cloudSubscriptionId ?? "",
      email: `admin@${zone}`,
      expiryDate: new Date(now.getTime() + sharedInDays * 86_400_000),
    };
    return {
      name,
      zone,
      options: {
        ...credentials,
        tenantId: `tenant-${name}`,
        clientId: `certsched-${name}`,
        subscription: `sub-${name}`,
        subscriptionId: String(1001 + index),
        certificates: [...own, shared],
      },
      faults,
    };
  };
  const [contoso = "contoso", fabrikam = "fabrikam"] = SANDBOX_ACCOUNT_NAMES;
  return [
    account(contoso, 0, SANDBOX_CREDENTIALS, 10, {
      // Staged: the service renews this one, the site keeps serving the old certificate.
      [SAMPLE_NOT_LANDED]: "keep-old-certificate",
    }),
    account(
      fabrikam,
      1,
      { apiKey: "sandbox-key-2e8d5b17c04a9f63", clientSecret: "sandbox-secret-6a0f3c9e1b7d2584" },
      13,
      {},
    ),
  ];
}

/** The vault's entries first (the first matching entry wins), then the catch-all. */
export function sandboxConnectTo(hosting: Hosting): string {
  // Port 80 (preflight's HTTP challenge) to the challenge listener, before the catch-all that
  // would send it to the TLS endpoint.
  return [hosting.vault.connectTo(), hosting.challenge.connectTo, hosting.connectTo]
    .filter((e) => e !== "")
    .join(",");
}

/**
 * One CERTSCHED_VERIFY_CONNECT_TO for several simulators' hosting sides: each vault host to its
 * simulator's vault, each App Service domain to the hosting endpoint that serves it, and no
 * catch-all (a name no simulator serves is not sent anywhere it could be mistaken for served).
 */
export function sandboxAccountsConnectTo(sims: readonly Simulator[]): string {
  const entries: string[] = [];
  for (const sim of sims) {
    const hosting = sim.hosting;
    if (!hosting) continue;
    const vault = hosting.vault.connectTo();
    if (vault !== "") entries.push(vault);
    const host = hosting.host.includes(":") ? `[${hosting.host}]` : hosting.host;
    const domains = new Set(
      sim
        .certificates()
        // The domains the hosting endpoint serves: App Service certificates', and Key Vault
        // certificates' (their consumers', sim/hosting/vaultServing.ts).
        .filter(
          (c) =>
            (c.target === "Cloud App Service" || c.target === "Cloud Key Vault + DNS") &&
            c.rootDomain !== null,
        )
        .map((c) => (c.rootDomain ?? "").toLowerCase()),
    );
    for (const domain of [...domains].sort()) {
      entries.push(`${domain}:443:${host}:${hosting.port}`);
    }
    // Each App Service domain's port 80 (preflight's HTTP challenge) to its challenge listener.
    const challenge = hosting.challenge.domainConnectTo();
    if (challenge !== "") entries.push(challenge);
  }
  return entries.join(",");
}

/** One account object of CERTSCHED_ACCOUNTS (docs/contracts/accounts.md) for a simulator. */
export function sandboxAccountDeclaration(name: string, sim: Simulator): Record<string, string> {
  const o = sim.options;
  return {
    name,
    baseUrl: sim.baseUrl,
    subscription: o.subscription,
    subscriptionId: o.subscriptionId,
    apiKey: o.apiKey,
    tenantId: o.tenantId,
    clientId: o.clientId,
    clientSecret: o.clientSecret,
    tokenUrl: sim.tokenUrl,
  };
}

/**
 * The settings that point certsched at several simulators, one account each: CERTSCHED_ACCOUNTS
 * (inline JSON, credentials inline: they are the simulators' throwaway values) and, when they
 * host, one CERTSCHED_VERIFY_CONNECT_TO for all of them. None of the single-account settings.
 */
export function sandboxAccountsSettings(
  accounts: readonly { readonly name: string; readonly sim: Simulator }[],
): Record<string, string> {
  const connectTo = sandboxAccountsConnectTo(accounts.map((a) => a.sim));
  return {
    CERTSCHED_ACCOUNTS: JSON.stringify(
      accounts.map(({ name, sim }) => sandboxAccountDeclaration(name, sim)),
    ),
    ...(connectTo === "" ? {} : { CERTSCHED_VERIFY_CONNECT_TO: connectTo }),
  };
}

/**
 * The CERTSCHED_* settings that point our app at a simulator: printed by the sandbox and reused
 * by the CLI and tests so the names live in one place.
 */
export function sandboxSettings(sim: Simulator): Record<string, string> {
  const o = sim.options;
  return {
    CERTSCHED_BASE_URL: sim.baseUrl,
    CERTSCHED_SUBSCRIPTION: o.subscription,
    CERTSCHED_SUBSCRIPTION_ID: o.subscriptionId,
    CERTSCHED_TENANT_ID: o.tenantId,
    CERTSCHED_CLIENT_ID: o.clientId,
    CERTSCHED_CLIENT_SECRET: o.clientSecret,
    CERTSCHED_API_KEY: o.apiKey,
    CERTSCHED_TOKEN_URL: sim.tokenUrl,
    // Each vault host to the simulator's vault, then every other name to the hosting endpoint,
    // when it runs: `certsched verify` then reads what the simulator serves and holds (trusting
    // its CA is up to the caller: NODE_EXTRA_CA_CERTS or `ca`), and no vault token ever leaves
    // for a real *.vault.azure.net (a vault named later lands on the hosting endpoint, whose
    // handshake fails for it before any request is sent).
    ...(sim.hosting ? { CERTSCHED_VERIFY_CONNECT_TO: sandboxConnectTo(sim.hosting) } : {}),
  };
}
