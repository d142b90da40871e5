/**
 * Child process of the verification benchmark (bench/verifyBench.ts): verifies an inventory of
 * N App Service certificates whose domains all lead (CERTSCHED_VERIFY_CONNECT_TO) to the
 * parent's TLS server, through the real run (shared/usecases/steps/verifyInventory.ts), after timing
 * single handshakes one at a time. Alone in its process, so its peak RSS is the run's.
 */

import { probeTls } from "../shared/adapters/probes/tlsProbe.js";
import { loadSettings } from "../shared/app/config/settings.js";
import { loadVerifySettings } from "../shared/app/config/verifySettings.js";
import { createAccountPorts } from "../shared/app/services.js";
import { APP_SERVICE } from "../shared/core/certificate/fields.js";
import { memoryInventory } from "../shared/core/ports/inventory.js";
import { silentLogger } from "../shared/lib/log.js";
import { verifyInventory } from "../shared/usecases/steps/verifyInventory.js";
import { median } from "./stats.js";

export interface VerifyChildInput {
  readonly port: number;
  readonly caPem: string;
  /** Domain suffix the server's wildcard certificate covers, e.g. "bench.test". */
  readonly suffix: string;
  readonly endpoints: number;
  readonly concurrency: number;
  /** Single handshakes timed one at a time before the run. */
  readonly handshakeSamples: number;
}

export interface VerifyChildResult {
  readonly endpoints: number;
  readonly concurrency: number;
  /** Median of the single handshakes (connect, handshake, close), ms. */
  readonly handshakeMs: number;
  /** verifyInventory over every endpoint, ms. */
  readonly wallMs: number;
  readonly counts: Readonly<Record<string, number>>;
  /** Modules loaded, runtime and inventory built, nothing probed yet. */
  readonly rssStartMiB: number;
  /** Peak resident set size of the process (getrusage maxrss). */
  readonly peakRssMiB: number;
}

const MiB = 1024 * 1024;
const input = JSON.parse(process.env.CERTSCHED_BENCH_VERIFY ?? "{}") as VerifyChildInput;
// Service settings the runtime needs to exist; the run never calls the service (no ledger).
const runtime = createAccountPorts(
  loadSettings({
    CERTSCHED_BASE_URL: "http://127.0.0.1:9",
    CERTSCHED_TOKEN_URL: "http://127.0.0.1:9/token",
    CERTSCHED_SUBSCRIPTION: "bench",
    CERTSCHED_TENANT_ID: "bench-tenant",
    CERTSCHED_CLIENT_ID: "bench-client",
    CERTSCHED_CLIENT_SECRET: "bench-client-secret-not-used",
    CERTSCHED_API_KEY: "bench-api-key-not-used",
  }),
  { inventory: memoryInventory() },
);
const seenAt = new Date();
const domain = (i: number) => `e${String(i).padStart(5, "0")}.${input.suffix}`;
await runtime.inventory.upsert(
  Array.from({ length: input.endpoints }, (_, i) => ({
    certificateName: `c${i}`,
    rootDomain: domain(i),
    target: APP_SERVICE,
    source: "created" as const,
    seenAt,
  })),
);
const settings = loadVerifySettings({
  CERTSCHED_VERIFY_CONNECT_TO: `::127.0.0.1:${input.port}`,
  CERTSCHED_HTTP_TIMEOUT: "30s",
});
const rssStart = process.memoryUsage().rss;

const samples: number[] = [];
for (let i = 0; i < input.handshakeSamples; i++) {
  const t0 = performance.now();
  const probe = await probeTls(
    { host: `sample${i}.${input.suffix}`, port: 443 },
    { connectTo: settings.connectTo, timeoutMs: settings.timeoutMs, ca: [input.caPem] },
  );
  samples.push(performance.now() - t0);
  if (!probe.reached) throw new Error(`handshake sample failed: ${probe.message}`);
}

const t1 = performance.now();
const verification = await verifyInventory(runtime, silentLogger, {
  trigger: "cli",
  settings,
  ca: [input.caPem],
  concurrency: input.concurrency,
});
const wallMs = performance.now() - t1;
await runtime.close();
const result: VerifyChildResult = {
  endpoints: verification.results.length,
  concurrency: input.concurrency,
  handshakeMs: median(samples),
  wallMs,
  counts: verification.counts,
  rssStartMiB: rssStart / MiB,
  peakRssMiB: (process.resourceUsage().maxRSS * 1024) / MiB,
};
process.stdout.write(JSON.stringify(result));
