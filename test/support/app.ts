import { randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:net";
import type { HttpRequest, HttpResponseInit, InvocationContext, LogLevel } from "@azure/functions";
import { loadSettings } from "../../shared/app/config/settings.js";
import type { Seams } from "../../shared/app/seams.js";
import { type AccountPorts, createAccountPorts, resetServices } from "../../shared/app/services.js";
import type { Logger } from "../../shared/lib/log.js";
import {
  type Simulator,
  type SimulatorOptions,
  sandboxSettings,
  startSimulator,
} from "../../sim/index.js";
import { invocationContext } from "./invoke.js";
import { type Reply, toReply } from "./reply.js";

export type { Reply };

/**
 * Runs the function app's exported handlers the way the host would, minus the host: real
 * HttpRequest / InvocationContext objects, the process-wide runtime built from process.env, and
 * the contract simulator behind it. Every log line and response body is kept so a test can
 * prove no secret leaked.
 */

/** One line a handler logged through its InvocationContext. */
export interface LogLine {
  readonly level: LogLevel;
  readonly functionName: string;
  readonly message: string;
}

export type Settings = Readonly<Record<string, string | undefined>>;

type HttpHandler = (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;

/** Settings the app reads; cleared before each case so the machine's environment cannot leak in. */
const OWNED = (key: string) => key.startsWith("CERTSCHED_") || key === "AzureWebJobsStorage";

export interface AppHarness {
  readonly sim: Simulator;
  /** Every line logged through contexts made here, in order. */
  readonly logs: LogLine[];
  /** Every response body returned by `call`, in order. */
  readonly bodies: string[];
  /**
   * Points the app at the simulator: process.env becomes sandboxSettings(sim) plus `extra`
   * (undefined deletes a setting), then the runtime is rebuilt with `overrides`.
   */
  configure(extra?: Settings, overrides?: Seams): Promise<void>;
  /** A fresh InvocationContext whose log lines land in `logs`. */
  context(functionName: string): InvocationContext;
  /** Runs an HTTP handler with a fresh context and records its answer. */
  call(handler: HttpHandler, request: HttpRequest): Promise<Reply>;
  /** Values that must never appear in a log line or a response (more may be added). */
  secrets(): string[];
  addSecrets(...values: string[]): void;
  /** The secrets found in the captured logs and bodies, and in `more`; [] when clean. */
  leaks(more?: readonly string[]): string[];
  /** Restores process.env, drops the runtime, stops the simulator. */
  close(): Promise<void>;
}

/**
 * Starts a simulator with a random API key and client secret (so a leak cannot hide behind a
 * common word) and configures the app for it.
 */
export async function startHarness(options: SimulatorOptions = {}): Promise<AppHarness> {
  const sim = await startSimulator({
    apiKey: `api-key-${randomBytes(12).toString("hex")}`,
    clientSecret: `client-secret-${randomBytes(12).toString("hex")}`,
    ...options,
  });
  const logs: LogLine[] = [];
  const bodies: string[] = [];
  const extraSecrets = new Set<string>();
  const env = new EnvSnapshot();
  const knownSecrets = new Set([sim.options.apiKey, sim.options.clientSecret]);

  const harness: AppHarness = {
    sim,
    logs,
    bodies,
    async configure(extra = {}, overrides = {}) {
      env.replace({ ...sandboxSettings(sim), ...extra });
      // A rotation changes what the simulator expects: remember every secret it ever held.
      knownSecrets.add(sim.options.clientSecret);
      await resetServices(overrides);
    },
    context(functionName) {
      return invocationContext(functionName, (level, message) => {
        logs.push({ level, functionName, message });
      });
    },
    async call(handler, request) {
      const response = await handler(request, harness.context(handler.name));
      const reply = toReply(response);
      bodies.push(reply.text);
      return reply;
    },
    secrets() {
      knownSecrets.add(sim.options.clientSecret);
      return [...knownSecrets, ...sim.issuedTokens(), ...extraSecrets];
    },
    addSecrets(...values) {
      for (const value of values) extraSecrets.add(value);
    },
    leaks(more = []) {
      const texts = [...logs.map((l) => l.message), ...bodies, ...more];
      return harness.secrets().filter((secret) => texts.some((t) => t.includes(secret)));
    },
    async close() {
      env.restore();
      await resetServices();
      await sim.close();
    },
  };
  await harness.configure();
  return harness;
}

/** Saves every setting it touches and puts them back on restore. */
export class EnvSnapshot {
  readonly #saved = new Map<string, string | undefined>();

  replace(settings: Settings): void {
    for (const key of Object.keys(process.env)) if (OWNED(key)) this.#set(key, undefined);
    for (const [key, value] of Object.entries(settings)) this.#set(key, value);
  }

  restore(): void {
    for (const [key, value] of this.#saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    this.#saved.clear();
  }

  #set(key: string, value: string | undefined): void {
    if (!this.#saved.has(key)) this.#saved.set(key, process.env[key]);
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
}

const appEnv = new EnvSnapshot();

/**
 * Points the function app's process-wide runtime at `settings` without a harness: every
 * CERTSCHED_* variable (and AzureWebJobsStorage) is replaced, then the runtime is rebuilt with
 * `overrides`. `releaseApp` undoes it.
 */
export async function configureApp(settings: Settings, overrides: Seams = {}): Promise<void> {
  appEnv.replace(settings);
  await resetServices(overrides);
}

/** Puts the environment back and drops the runtime. */
export async function releaseApp(): Promise<void> {
  appEnv.restore();
  await resetServices();
}

/** A table name no other test uses (Azure table names: letters and digits, 3..63). */
export function uniqueTableName(prefix = "t"): string {
  return `${prefix}${randomUUID().replaceAll("-", "")}`.slice(0, 40);
}

/** A stack frame as V8 prints it: a response body must never carry one. */
export const STACK_FRAME = /\n\s+at |\bat [\w.<>]+ \(.*:\d+:\d+\)/;

/**
 * A runtime of its own (not the process-wide one) pointed at `sim`: for calling the sweep
 * directly, or for two "function instances" at once. Close it when done.
 */
export function runtimeFor(
  sim: Simulator,
  extra: Settings = {},
  overrides: Seams = {},
): AccountPorts {
  return createAccountPorts(loadSettings({ ...sandboxSettings(sim), ...extra }), overrides);
}

/** A Logger that keeps its lines, for the sweep called directly. */
export function collectingLogger(): { log: Logger; lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  return {
    lines,
    log: {
      info: (message) => lines.push({ level: "info", message }),
      warn: (message) => lines.push({ level: "warn", message }),
      error: (message) => lines.push({ level: "error", message }),
    },
  };
}

/** The secrets of `sim` found in `texts`; [] when clean. */
export function leaksIn(sim: Simulator, texts: readonly string[], extra: readonly string[] = []) {
  const secrets = [sim.options.apiKey, sim.options.clientSecret, ...sim.issuedTokens(), ...extra];
  return secrets.filter((secret) => texts.some((t) => t.includes(secret)));
}

/** A loopback port nobody listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== "object" || !address) throw new Error("could not pick a port");
  return address.port;
}
