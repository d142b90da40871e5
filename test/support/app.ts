import { randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:net";
import {
  HttpRequest,
  type HttpRequestInit,
  type HttpResponseInit,
  InvocationContext,
  type LogLevel,
  type Timer,
} from "@azure/functions";
import { loadSettings } from "../../shared/app/config/settings.js";
import {
  createRuntime,
  type Runtime,
  type RuntimeOverrides,
  resetRuntime,
} from "../../shared/app/services.js";
import type { Logger } from "../../shared/lib/log.js";
import {
  type Simulator,
  type SimulatorOptions,
  sandboxSettings,
  startSimulator,
} from "../../sim/index.js";
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
  configure(extra?: Settings, overrides?: RuntimeOverrides): Promise<void>;
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
      await resetRuntime(overrides);
    },
    context(functionName) {
      return new InvocationContext({
        invocationId: randomUUID(),
        functionName,
        logHandler: (level, ...args) => {
          logs.push({ level, functionName, message: args.map(String).join(" ") });
        },
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
      await resetRuntime();
      await sim.close();
    },
  };
  await harness.configure();
  return harness;
}

/** Saves every setting it touches and puts them back on restore. */
class EnvSnapshot {
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

const BASE = "http://localhost:7071/api/";

export interface RequestInit {
  readonly method?: string;
  /** Route below /api/, e.g. "certificates/due". */
  readonly path: string;
  readonly query?: Record<string, string>;
  readonly params?: Record<string, string>;
  /** Sent as application/json unless `headers` names another content type. */
  readonly json?: unknown;
  /** A raw body; give the content type in `headers`. */
  readonly body?: string | Uint8Array;
  readonly headers?: Record<string, string>;
}

/** An HttpRequest as the host builds it for a buffered request. */
export function httpRequest(init: RequestInit): HttpRequest {
  const url = new URL(init.path, BASE);
  for (const [key, value] of Object.entries(init.query ?? {})) url.searchParams.set(key, value);
  const headers: Record<string, string> = { ...init.headers };
  let body: HttpRequestInit["body"];
  if (init.json !== undefined) {
    headers["content-type"] ??= "application/json";
    body = { string: JSON.stringify(init.json) };
  } else if (typeof init.body === "string") {
    body = { string: init.body };
  } else if (init.body) {
    body = { bytes: init.body };
  }
  return new HttpRequest({
    method: init.method ?? "POST",
    url: url.href,
    headers,
    params: init.params ?? {},
    ...(body ? { body } : {}),
  });
}

/** What `streamingRequest` has handed out so far. */
export interface StreamProgress {
  /** Bytes the handler pulled from the stream. */
  pulled(): number;
  /** Whether the handler cancelled the stream (stopped reading). */
  cancelled(): boolean;
}

/**
 * An HttpRequest whose body streams in 16 KiB chunks, as the host's HTTP streaming mode delivers
 * it (a native Request with a stream body; see the library's createStreamRequest). The body is
 * `content`, or `totalBytes` of a JSON string that never ends. Nothing tells the handler the size
 * up front unless `headers` does.
 */
export function streamingRequest(
  init: { path: string; content?: string; totalBytes?: number; headers?: Record<string, string> },
  chunkBytes = 16 * 1024,
): { request: HttpRequest; progress: StreamProgress } {
  const content = init.content === undefined ? undefined : Buffer.from(init.content);
  const total = content?.length ?? init.totalBytes ?? 0;
  let sent = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) {
        controller.close();
        return;
      }
      const size = Math.min(chunkBytes, total - sent);
      let chunk: Buffer;
      if (content) {
        chunk = content.subarray(sent, sent + size);
      } else {
        // An unterminated JSON string: the handler must stop on size, not on a parse error.
        chunk = Buffer.alloc(size, "a".charCodeAt(0));
        if (sent === 0) chunk.write('{"x":"');
      }
      sent += size;
      controller.enqueue(chunk);
    },
    cancel() {
      cancelled = true;
    },
  });
  const url = new URL(init.path, BASE).href;
  const nativeRequest = new Request(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...init.headers },
    body: stream,
    duplex: "half",
  });
  // The library's own streaming path passes the native request this way (not in its typings).
  const streamInit: HttpRequestInit & { nativeRequest: Request } = { nativeRequest, params: {} };
  return {
    request: new HttpRequest(streamInit),
    progress: { pulled: () => sent, cancelled: () => cancelled },
  };
}

/** The timer argument the host passes; scheduleStatus is as the host fills it on a normal run. */
export function timer(isPastDue = false): Timer {
  const now = new Date().toISOString();
  return {
    isPastDue,
    schedule: { adjustForDST: false },
    scheduleStatus: { last: now, next: now, lastUpdated: now },
  };
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
  overrides: RuntimeOverrides = {},
): Runtime {
  return createRuntime(loadSettings({ ...sandboxSettings(sim), ...extra }), overrides);
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
