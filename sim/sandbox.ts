/**
 * The sandbox's own throwaway credentials. Not words: certsched redacts every secret it holds,
 * and halves of a long one, wherever they appear, so a secret like "sim-client-secret" would
 * blank out the ordinary word "client-secret" in the sandbox's output.
 */
export const SANDBOX_CREDENTIALS = {
  apiKey: "sandbox-key-4f1c9e72a0b3d865",
  clientSecret: "sandbox-secret-9b27e05d4c1f83a6",
} as const;

import type { Hosting } from "./hosting/hosting.js";
import type { Simulator } from "./simulator.js";

/** The vault's entries first (the first matching entry wins), then the catch-all. */
export function sandboxConnectTo(hosting: Hosting): string {
  return [hosting.vault.connectTo(), hosting.connectTo].filter((e) => e !== "").join(",");
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
