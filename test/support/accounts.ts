import { randomBytes } from "node:crypto";
import { type Simulator, type SimulatorOptions, startSimulator } from "../../sim/index.js";

/**
 * Many accounts for tests (docs/contracts/accounts.md): one simulator per
 * account, each with its own API key, tenant, client, client secret and subscription, so a
 * request that carries one account's credential to another's service is seen on the wire.
 */

export interface SimAccount {
  readonly name: string;
  readonly sim: Simulator;
}

export interface SimAccounts {
  readonly accounts: readonly SimAccount[];
  /** The account's simulator, by name. */
  sim(name: string): Simulator;
  /** The account objects, as CERTSCHED_ACCOUNTS holds them (credentials inline). */
  declarations(): Record<string, unknown>[];
  /** { CERTSCHED_ACCOUNTS: <the declarations as JSON> }. */
  env(): Record<string, string>;
  /** Every account's API key, client secret and issued token: none may leak anywhere. */
  secrets(): string[];
  close(): Promise<void>;
}

/** Names "acct-1", "acct-2", … unless given. */
export function accountNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `acct-${i + 1}`);
}

/**
 * Starts one simulator per name, each with random credentials of its own (so a leak cannot
 * hide behind a common word). `options(name, index)` adds simulator options per account.
 */
export async function startSimAccounts(
  names: readonly string[],
  options: (name: string, index: number) => SimulatorOptions = () => ({}),
): Promise<SimAccounts> {
  const accounts: SimAccount[] = [];
  try {
    for (const [index, name] of names.entries()) {
      const tag = randomBytes(8).toString("hex");
      const sim = await startSimulator({
        apiKey: `api-key-${name}-${tag}`,
        clientSecret: `client-secret-${name}-${tag}`,
        tenantId: `tenant-${name}`,
        clientId: `client-${name}`,
        subscription: `sub-${name}`,
        subscriptionId: String(2000 + index),
        ...options(name, index),
      });
      accounts.push({ name, sim });
    }
  } catch (error) {
    await Promise.all(accounts.map((a) => a.sim.close()));
    throw error;
  }
  const declarations = () =>
    accounts.map(({ name, sim }) => ({
      name,
      baseUrl: sim.baseUrl,
      subscription: sim.options.subscription,
      subscriptionId: sim.options.subscriptionId,
      apiKey: sim.options.apiKey,
      tenantId: sim.options.tenantId,
      clientId: sim.options.clientId,
      clientSecret: sim.options.clientSecret,
      tokenUrl: sim.tokenUrl,
    }));
  return {
    accounts,
    sim(name) {
      const found = accounts.find((a) => a.name === name);
      if (!found) throw new Error(`no simulated account ${name}`);
      return found.sim;
    },
    declarations,
    env: () => ({ CERTSCHED_ACCOUNTS: JSON.stringify(declarations()) }),
    secrets: () =>
      accounts.flatMap(({ sim }) => [
        sim.options.apiKey,
        sim.options.clientSecret,
        ...sim.issuedTokens(),
      ]),
    close: async () => {
      await Promise.all(accounts.map((a) => a.sim.close()));
    },
  };
}
