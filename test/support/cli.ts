import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { DAY_MS } from "../../shared/lib/time.js";
import {
  SANDBOX_CREDENTIALS,
  type SeedCertificate,
  type Simulator,
  sandboxSettings,
} from "../../sim/index.js";
import { type ChildOptions, type ChildResult, runCli } from "./cliBuild.js";

/** A date `days` from now: the children read the real clock, so seeds do too. */
export const inDays = (days: number) => new Date(Date.now() + days * DAY_MS);

/** Every value that must never be printed: the sim's credentials and every token it issued. */
export function secretsOf(sim: Simulator): string[] {
  return [sim.options.apiKey, sim.options.clientSecret, ...sim.issuedTokens()];
}

export function expectNoSecret(result: ChildResult, sim: Simulator): void {
  const output = result.stdout + result.stderr;
  for (const secret of secretsOf(sim)) expect(output).not.toContain(secret);
}

/** An access token the simulator issued, as it issues them (sim/identity.ts). */
const SIM_TOKEN = /simtok-[0-9a-f]{48}/;

/** The built-in sandbox's own credentials. */
const SANDBOX_SECRETS = {
  CERTSCHED_API_KEY: SANDBOX_CREDENTIALS.apiKey,
  CERTSCHED_CLIENT_SECRET: SANDBOX_CREDENTIALS.clientSecret,
};

/**
 * For a run against a simulator the test holds no handle on (the sandbox, inside the child):
 * neither its credentials, as given in `settings`, nor anything shaped like one of its tokens.
 */
export function expectNoSandboxSecret(
  result: ChildResult,
  settings: Readonly<Record<string, string | undefined>> = SANDBOX_SECRETS,
): void {
  const output = result.stdout + result.stderr;
  for (const name of ["CERTSCHED_API_KEY", "CERTSCHED_CLIENT_SECRET"] as const) {
    const secret = settings[name];
    expect(secret, name).toBeTruthy();
    expect(output).not.toContain(secret);
  }
  expect(output).not.toMatch(SIM_TOKEN);
}

/**
 * `certsched <args>` configured for the simulator through the environment, like an operator
 * would; every run is also scanned for secrets.
 */
export async function cliAgainst(
  sim: Simulator,
  args: readonly string[],
  options: ChildOptions = {},
): Promise<ChildResult> {
  const result = await runCli(args, {
    ...options,
    env: { ...sandboxSettings(sim), ...options.env },
  });
  expectNoSecret(result, sim);
  return result;
}

/** stdout must be exactly one JSON document: JSON.parse fails on anything else there. */
export function jsonOf<T = Record<string, unknown>>(result: ChildResult): T {
  return JSON.parse(result.stdout) as T;
}

/** A throwaway working directory (for local.settings.json and request files). */
export async function tempDir(): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "certsched-cli-"));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

export async function writeJson(path: string, value: unknown): Promise<void> {
  await writeFile(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Certificates with ids no other test file uses, so a shared Azurite table never collides. */
export function seeds(base: number, days: readonly number[]): SeedCertificate[] {
  return days.map((d, i) => ({
    certificateName: `cert-${base + i}`,
    id: base + i,
    expiryDate: inDays(d),
    rootDomain: "contoso.com",
  }));
}
