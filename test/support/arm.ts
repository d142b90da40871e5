import { inject } from "vitest";
import { clientCredentialsSource } from "../../shared/adapters/identity/clientCredentials.js";
import { TokenCache } from "../../shared/adapters/identity/tokenCache.js";
import {
  type ResourceCredential,
  tokenCredential,
} from "../../shared/adapters/identity/tokenCredential.js";
import { HttpClient } from "../../shared/lib/http/httpClient.js";
import {
  type ArmOptions,
  type ArmSimulator,
  type Simulator,
  startArm,
  startSimulator,
} from "../../sim/index.js";

/**
 * The simulator's ARM for a test, over the loopback certificate every worker trusts
 * (globalSetup.ts sets NODE_EXTRA_CA_CERTS), with certsched's own management credential: the
 * contract simulator's identity provider issues the tokens, through certsched's token cache
 * (shared/adapters/identity/), and ARM accepts only tokens that provider issued.
 */
export interface TestArm {
  readonly arm: ArmSimulator;
  /** The contract simulator: its identity provider issues the management tokens. */
  readonly sim: Simulator;
  readonly tokens: TokenCache;
  /** certsched's TokenCredential for the management resource, as preflight gets it. */
  readonly credential: ResourceCredential;
  /** The management resource the credential serves (the sim's, `https://management.core.windows.net/`). */
  readonly resource: string;
  close(): Promise<void>;
}

export async function startTestArm(
  options: Omit<ArmOptions, "key" | "cert" | "acceptToken"> = {},
): Promise<TestArm> {
  const tls = inject("loopbackTls");
  const sim = await startSimulator();
  const arm = await startArm({
    ...options,
    ...tls,
    acceptToken: (token) => sim.issuedTokens().includes(token),
  });
  const source = clientCredentialsSource({
    tokenUrl: sim.tokenUrl,
    tenantId: sim.options.tenantId,
    clientId: sim.options.clientId,
    withClientSecret: (request) => request(sim.options.clientSecret),
    http: new HttpClient({ timeoutMs: 5_000 }),
  });
  const tokens = new TokenCache(source);
  const resource = sim.options.managementResource;
  return {
    arm,
    sim,
    tokens,
    credential: tokenCredential(tokens, resource),
    resource,
    close: async () => {
      await arm.close();
      await sim.close();
    },
  };
}
