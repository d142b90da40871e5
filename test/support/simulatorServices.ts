import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { loadSettings } from "../../shared/app/config/settings.js";
import type { Seams } from "../../shared/app/seams.js";
import { type AccountPorts, createAccountPorts } from "../../shared/app/services.js";
import {
  type CreateCertificateInput,
  createCertificateInput,
} from "../../shared/core/certificate/createRequest.js";
import {
  type RecordedRequest,
  type Simulator,
  type SimulatorOptions,
  sandboxSettings,
  startSimulator,
} from "../../sim/index.js";
import { validCreateInputs } from "./createBodies.js";

/*
 * Shared by the core suites: a simulator plus a runtime built from real settings, and a leak
 * watch. Every error a test provokes goes through `failure()`, and each file ends with
 * `expectNoSecretLeaks()`, which scans them all for the API key, the client secret and every
 * token the simulator issued.
 */

/** Long, distinctive secrets: a leak scan on "sim-api-key" could miss a partial echo. */
export function distinctiveSecrets(): { apiKey: string; clientSecret: string } {
  const tag = randomBytes(12).toString("hex");
  return { apiKey: `apikey-${tag}`, clientSecret: `clientsecret-${tag}` };
}

export interface Sandbox {
  readonly sim: Simulator;
  readonly runtime: AccountPorts;
  close(): Promise<void>;
}

/** A simulator and a runtime pointed at it through loadSettings, as the function app builds it. */
export async function startSandbox(
  options: {
    sim?: SimulatorOptions;
    env?: Record<string, string | undefined>;
    overrides?: Seams;
  } = {},
): Promise<Sandbox> {
  const sim = await startSimulator({ ...distinctiveSecrets(), ...options.sim });
  watchSimulator(sim);
  const runtime = runtimeFor(sim, options.env, options.overrides);
  return {
    sim,
    runtime,
    close: async () => {
      await runtime.close();
      await sim.close();
    },
  };
}

/** A fresh runtime (empty token cache) for an existing simulator; close it after use. */
export function runtimeFor(
  sim: Simulator,
  env: Record<string, string | undefined> = {},
  overrides: Seams = {},
): AccountPorts {
  const settings = loadSettings({ ...sandboxSettings(sim), ...env });
  watchSecret(settings.apiKey);
  watchSecret(settings.clientSecret);
  return createAccountPorts(settings, overrides);
}

/** The form field `resource` of each recorded token request, in arrival order. */
export function tokenResources(sim: Simulator): string[] {
  return sim.requestsFor("token").map((r) => new URLSearchParams(r.body).get("resource") ?? "");
}

export function jsonBody(request: RecordedRequest | undefined): Record<string, unknown> {
  if (!request) throw new Error("no such request reached the simulator");
  return JSON.parse(request.body) as Record<string, unknown>;
}

/** A cloud token the runtime holds (from its cache: asserts no new token request). */
export async function heldToken(
  runtime: AccountPorts,
  which: "management" | "vault",
): Promise<string> {
  const before = runtime.tokens.requests;
  const resource =
    which === "management" ? runtime.settings.managementResource : runtime.settings.vaultResource;
  const token = await runtime.tokens.token(resource);
  expect(runtime.tokens.requests, `the ${which} token must come from the cache`).toBe(before);
  return token;
}

/** Both cloud tokens the runtime holds. */
export async function heldTokens(
  runtime: AccountPorts,
): Promise<{ management: string; vault: string }> {
  return {
    management: await heldToken(runtime, "management"),
    vault: await heldToken(runtime, "vault"),
  };
}

/** Valid create inputs for the cases of spec 2.1, as a caller of certsched sends them. */
export const createInputs = validCreateInputs;

export type CreateInputCase = keyof ReturnType<typeof createInputs>;

/** A create input parsed by the real schema (so it is typed, and known to be valid). */
export function createInput(
  name: CreateInputCase,
  patch: Record<string, unknown> = {},
): CreateCertificateInput {
  return createCertificateInput.parse({ ...createInputs()[name], ...patch });
}

// ---- leak watch -------------------------------------------------------------------------------

const provoked: unknown[] = [];
const secrets = new Set<string>();
const simulators: Simulator[] = [];

export function watchSimulator(sim: Simulator): void {
  simulators.push(sim);
  watchSecret(sim.options.apiKey);
  watchSecret(sim.options.clientSecret);
}

export function watchSecret(value: string | undefined): void {
  if (value) secrets.add(value);
}

/** Awaits a call that must fail; records the error for the leak scan and returns it. */
export async function failure(call: Promise<unknown>): Promise<Error> {
  try {
    await call;
  } catch (error) {
    provoked.push(error);
    if (!(error instanceof Error)) throw new Error(`a non-Error was thrown: ${String(error)}`);
    return error;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

/** Records an error caught some other way (e.g. a synchronous throw). */
export function recordError(error: unknown): void {
  provoked.push(error);
}

/** Everything a person could read from an error: message, stack, detail, problems, causes. */
export function textsOf(error: unknown, depth = 0): string[] {
  if (depth > 5 || typeof error !== "object" || error === null) return [String(error)];
  const e = error as Record<string, unknown>;
  const texts = [String(e.message), String(e.stack)];
  if (typeof e.detail === "string") texts.push(e.detail);
  for (const key of ["problems", "issues"]) {
    if (Array.isArray(e[key])) texts.push(JSON.stringify(e[key]));
  }
  if (e.cause !== undefined) texts.push(...textsOf(e.cause, depth + 1));
  return texts;
}

/**
 * Scans every recorded error for every watched secret and every token the simulators issued.
 * Files call it from afterAll, and from a last test with `atLeast`: a scan over nothing proves
 * nothing, but a run filtered down to one test must not fail for that.
 */
export function expectNoSecretLeaks(atLeast = 0): void {
  for (const sim of simulators) for (const token of sim.issuedTokens()) secrets.add(token);
  expect(provoked.length).toBeGreaterThanOrEqual(atLeast);
  expect(secrets.size).toBeGreaterThan(0);
  const leaks: string[] = [];
  for (const error of provoked) {
    for (const text of textsOf(error)) {
      for (const secret of secrets) {
        if (text.includes(secret)) leaks.push(`${secret.slice(0, 8)}… in: ${text.slice(0, 200)}`);
      }
    }
  }
  expect(leaks).toEqual([]);
}
