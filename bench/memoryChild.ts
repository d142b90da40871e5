/**
 * Child process of the memory benchmark (bench/memoryBench.ts): lists the certificates due once,
 * through the real client (HTTP, JSON parse, per-record validation), and prints what it cost.
 * Alone in its process, so its peak RSS is the listing's and nothing else's.
 */

import { loadSettings } from "../shared/app/config/settings.js";
import { createAccountPorts } from "../shared/app/services.js";
import type { UpstreamName } from "../shared/lib/errors.js";

export interface MemoryChildResult {
  readonly certificates: number;
  readonly rejected: number;
  /** Both cloud tokens fetched: undici loaded, connection open. */
  readonly tokensMs: number;
  /** listDue() with the tokens cached: the list call, JSON.parse, per-record validation. */
  readonly listMs: number;
  /** The list call alone, as the HttpClient timed it (send to body read). */
  readonly listCallMs: number;
  /** Modules loaded and runtime built, nothing sent yet. */
  readonly rssStartMiB: number;
  /** After the token requests, before the list. */
  readonly rssReadyMiB: number;
  /** Peak resident set size of the process (getrusage maxrss). */
  readonly peakRssMiB: number;
}

const MiB = 1024 * 1024;
const calls: { upstream: UpstreamName; ms: number }[] = [];
const runtime = createAccountPorts(loadSettings(process.env), {
  onCall: (upstream, ms) => calls.push({ upstream, ms }),
});
const rssStart = process.memoryUsage().rss;
const t0 = performance.now();
await runtime.tokens.token(runtime.settings.managementResource);
await runtime.tokens.token(runtime.settings.vaultResource);
const tokensMs = performance.now() - t0;
const rssReady = process.memoryUsage().rss;
const t1 = performance.now();
const due = await runtime.client.listDue();
const listMs = performance.now() - t1;
await runtime.close();
const result: MemoryChildResult = {
  certificates: due.certificates.length,
  rejected: due.rejected.length,
  tokensMs,
  listMs,
  listCallMs: calls.find((c) => c.upstream === "list")?.ms ?? Number.NaN,
  rssStartMiB: rssStart / MiB,
  rssReadyMiB: rssReady / MiB,
  peakRssMiB: (process.resourceUsage().maxRSS * 1024) / MiB,
};
process.stdout.write(JSON.stringify(result));
