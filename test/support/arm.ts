import { inject } from "vitest";
import { clientCredentialsSource } from "../../shared/adapters/identity/clientCredentials.js";
import { TokenCache } from "../../shared/adapters/identity/tokenCache.js";
import {
  type ResourceCredential,
  tokenCredential,
} from "../../shared/adapters/identity/tokenCredential.js";
import { armLookups } from "../../shared/adapters/preflight/armLookups.js";
import { HttpClient } from "../../shared/lib/http/httpClient.js";
import type { CheckContext } from "../../shared/usecases/preflightChecks/checkTypes.js";
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

/**
 * A CheckContext whose ARM is the test's (through the real adapter and SDKs); DNS and the HTTP
 * challenge are not expected to be asked by ARM checks: asking them fails the test.
 */
export function armCheckContext(t: TestArm, timeoutMs = 2_000): CheckContext {
  const unexpected = (what: string) => () => {
    throw new Error(`an ARM check asked ${what}`);
  };
  return {
    probes: {
      arm: armLookups({
        armUrl: t.arm.url,
        credential: t.credential,
        timeoutMs,
        resource: t.resource,
      }),
      dns: { caa: unexpected("DNS for CAA"), ns: unexpected("DNS for NS") },
      challenge: { reach: unexpected("the HTTP challenge") },
    },
    settings: {
      armUrl: t.arm.url,
      dnsServers: [],
      caIdentifiers: ["letsencrypt.org"],
      days: 30,
      timeoutMs,
      connectTo: [],
    },
  };
}
