import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { HttpRequest, type HttpRequestInit, type Timer } from "@azure/functions";
import { type RuntimeOverrides, resetRuntime } from "../../../shared/app/services.js";
import {
  type SeedCertificate,
  type Simulator,
  type SimulatorOptions,
  sandboxSettings,
  startSimulator,
} from "../../../sim/index.js";
import { type Reply, toReply } from "../../support/reply.js";

export type { Reply };
export { toReply };

import { DAY_MS } from "../../../shared/lib/time.js";

/** A simulator whose API key and client secret are random, so a leak cannot hide in a word. */
export function startSim(options: SimulatorOptions = {}): Promise<Simulator> {
  return startSimulator({
    apiKey: `rel-api-key-${randomBytes(12).toString("hex")}`,
    clientSecret: `rel-client-secret-${randomBytes(12).toString("hex")}`,
    ...options,
  });
}

/**
 * `count` certificates due within the 20-day window, named `<prefix>-<n>`, both targets,
 * expiring a day apart (or spread evenly over `withinDays`).
 */
export function dueCertificates(
  now: Date,
  count: number,
  prefix = "due",
  withinDays = count + 1,
): SeedCertificate[] {
  const step = (withinDays / (count + 1)) * DAY_MS;
  return Array.from({ length: count }, (_, i) => ({
    certificateName: `${prefix}-${i + 1}`,
    rootDomain: `${prefix}-${i + 1}.contoso.com`,
    target: i % 2 === 0 ? ("Cloud App Service" as const) : ("Cloud Key Vault + DNS" as const),
    ...(i % 2 === 0 ? {} : { keyVaultName: "kv-rel", dnsZoneResourceGroup: "rg-dns" }),
    expiryDate: new Date(now.getTime() + (i + 1) * step),
  }));
}

/** certsched's settings for a simulator, as strings (the function app's environment). */
export function settingsFor(sim: Simulator, extra: Record<string, string> = {}) {
  return { ...sandboxSettings(sim), ...extra };
}

/** A loopback port nothing listens on (bound, then released). */
export function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const OWNED = (key: string) => key.startsWith("CERTSCHED_") || key === "AzureWebJobsStorage";
const saved = new Map<string, string | undefined>();

/**
 * Points the function app's process-wide runtime at `settings`: every CERTSCHED_* variable (and
 * AzureWebJobsStorage) is replaced, then the runtime is rebuilt with `overrides`.
 */
export async function configureApp(
  settings: Record<string, string>,
  overrides: RuntimeOverrides = {},
): Promise<void> {
  const set = (key: string, value: string | undefined) => {
    if (!saved.has(key)) saved.set(key, process.env[key]);
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  };
  for (const key of Object.keys(process.env)) if (OWNED(key)) set(key, undefined);
  for (const [key, value] of Object.entries(settings)) set(key, value);
  await resetRuntime(overrides);
}

/** Puts the environment back and drops the runtime. */
export async function releaseApp(): Promise<void> {
  for (const [key, value] of saved) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  saved.clear();
  await resetRuntime();
}

const BASE = "http://localhost:7071/api/";

/** An HttpRequest as the host builds it for a buffered request. */
export function httpRequest(init: {
  method?: string;
  path: string;
  /** Raw query string without "?", used as given. */
  rawQuery?: string;
  params?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string;
}): HttpRequest {
  const url = new URL(init.path, BASE);
  if (init.rawQuery !== undefined) url.search = init.rawQuery;
  const request: HttpRequestInit = {
    method: init.method ?? "POST",
    url: url.href,
    headers: init.headers ?? {},
    params: init.params ?? {},
    ...(init.body !== undefined ? { body: { string: init.body } } : {}),
  };
  return new HttpRequest(request);
}

/** The timer argument the host passes on a normal run. */
export function timer(): Timer {
  const now = new Date().toISOString();
  return {
    isPastDue: false,
    schedule: { adjustForDST: false },
    scheduleStatus: { last: now, next: now, lastUpdated: now },
  };
}

/** What a streaming body has handed out so far. */
export interface StreamProgress {
  /** Bytes the handler pulled from the stream. */
  pulled(): number;
  /** Whether the handler cancelled the stream (stopped reading). */
  cancelled(): boolean;
}

/**
 * An HttpRequest whose body streams 16 KiB chunks of a JSON string that never closes, for as
 * long as the handler reads (`totalBytes` default: without end), as the host's HTTP streaming
 * mode delivers it: a native Request with a stream body.
 */
export function streamingRequest(init: {
  path: string;
  headers?: Record<string, string>;
  totalBytes?: number;
}): { request: HttpRequest; progress: StreamProgress } {
  const total = init.totalBytes ?? Number.POSITIVE_INFINITY;
  const chunkBytes = 16 * 1024;
  let sent = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) {
        controller.close();
        return;
      }
      const chunk = Buffer.alloc(Math.min(chunkBytes, total - sent), "a".charCodeAt(0));
      if (sent === 0) chunk.write('{"certificateName":"');
      sent += chunk.length;
      controller.enqueue(chunk);
    },
    cancel() {
      cancelled = true;
    },
  });
  const nativeRequest = new Request(new URL(init.path, BASE).href, {
    method: "POST",
    headers: { "content-type": "application/json", ...init.headers },
    body: stream,
    duplex: "half",
  } as RequestInit);
  // The library's streaming path hands the native request over this way (not in its typings).
  const streamInit = { nativeRequest, params: {} } as HttpRequestInit;
  return {
    request: new HttpRequest(streamInit),
    progress: { pulled: () => sent, cancelled: () => cancelled },
  };
}
