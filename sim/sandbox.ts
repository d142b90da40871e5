import type { Simulator } from "./simulator.js";

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
  };
}
