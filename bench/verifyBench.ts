import { execFile } from "node:child_process";
import type { AddressInfo } from "node:net";
import tls from "node:tls";
import { promisify } from "node:util";
import { HostingCa } from "../sim/hosting/hostingCa.js";
import { childEnv } from "./isolation.js";
import type { Section } from "./report.js";
import { formatMs, median } from "./stats.js";
import type { VerifyChildInput, VerifyChildResult } from "./verifyChild.js";

export interface VerifyBenchOptions {
  /** The compiled bench/verifyChild.ts. */
  readonly childScript: string;
  /** Endpoints to verify (bench/main.ts: 1,000, the run the goals are set for). */
  readonly endpoints: number;
  /** Probes at a time: verifyInventory's default. */
  readonly concurrency: number;
  /**
   * Time the server adds to every handshake (before it answers the ClientHello), ms: it stands
   * for the network round trips of a real endpoint, which loopback does not have.
   */
  readonly latencyMs: number;
  /** Fresh child processes, one run each. */
  readonly runs: number;
  readonly progress: (line: string) => void;
}

/** The verifying process's peak RSS goal for a run over 1,000 endpoints, MB. */
export const VERIFY_RSS_GOAL_MB = 200;

const SUFFIX = "bench.test";
const DAY_MS = 86_400_000;

/**
 * One TLS server on loopback that answers every SNI name under SUFFIX with one wildcard
 * certificate, after `latencyMs`: a thousand endpoints behind one port, as
 * CERTSCHED_VERIFY_CONNECT_TO lets the run reach them.
 */
async function startServer(latencyMs: number) {
  const ca = await HostingCa.create(new Date());
  const leaf = ca.issue([`*.${SUFFIX}`], {
    notBefore: new Date(Math.floor(Date.now() / 1000) * 1000 - DAY_MS),
    // 90 days in all, as the service's CA issues: a browser (and `too-long`) refuses 365 now.
    notAfter: new Date(Math.floor(Date.now() / 1000) * 1000 + 89 * DAY_MS),
  });
  const context = tls.createSecureContext({ cert: leaf.cert, key: leaf.key });
  let latency = latencyMs;
  const server = tls.createServer({
    cert: leaf.cert,
    key: leaf.key,
    SNICallback: (_name, done) => {
      if (latency > 0) setTimeout(() => done(null, context), latency);
      else done(null, context);
    },
  });
  // The probe closes right after the handshake; a reset on the way out is not a failure here.
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    caPem: ca.certPem,
    setLatency(ms: number) {
      latency = ms;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function runChild(script: string, input: VerifyChildInput): Promise<VerifyChildResult> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [script], {
      env: childEnv({ CERTSCHED_BENCH_VERIFY: JSON.stringify(input) }),
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(stdout) as VerifyChildResult;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? "";
    throw new Error(`verify child failed: ${(error as Error).message}\n${stderr}`);
  }
}

/** Section: verifying many endpoints, wall time against the handshake time, and peak RSS. */
export async function verifyBench(options: VerifyBenchOptions): Promise<Section> {
  const server = await startServer(options.latencyMs);
  const withLatency: VerifyChildResult[] = [];
  const bare: VerifyChildResult[] = [];
  try {
    const input = (samples: number): VerifyChildInput => ({
      port: server.port,
      caPem: server.caPem,
      suffix: SUFFIX,
      endpoints: options.endpoints,
      concurrency: options.concurrency,
      handshakeSamples: samples,
    });
    const check = (r: VerifyChildResult) => {
      // Every endpoint read and judged ok, or the figures are not about verification.
      if (r.endpoints !== options.endpoints || r.counts.ok !== options.endpoints) {
        throw new Error(
          `verify child judged ${r.endpoints} endpoints, ${JSON.stringify(r.counts)}; expected ${options.endpoints} ok`,
        );
      }
      return r;
    };
    for (let run = 0; run < options.runs; run++) {
      server.setLatency(options.latencyMs);
      const r = check(await runChild(options.childScript, input(40)));
      withLatency.push(r);
      options.progress(
        `verify: run ${run + 1}/${options.runs}: ${options.endpoints} endpoints in ${formatMs(r.wallMs)}, handshake ${formatMs(r.handshakeMs)}, peak RSS ${r.peakRssMiB.toFixed(1)} MiB`,
      );
      server.setLatency(0);
      const b = check(await runChild(options.childScript, input(40)));
      bare.push(b);
      options.progress(
        `verify: run ${run + 1}/${options.runs}, no added latency: ${formatMs(b.wallMs)}, handshake ${formatMs(b.handshakeMs)}`,
      );
    }
  } finally {
    await server.close();
  }
  const n = options.endpoints.toLocaleString("en-US");
  const c = options.concurrency;
  const handshake = median(withLatency.map((r) => r.handshakeMs));
  const wall = median(withLatency.map((r) => r.wallMs));
  const goalMs = 2 * (options.endpoints / c) * handshake;
  const peak = Math.max(...withLatency.map((r) => r.peakRssMiB), ...bare.map((r) => r.peakRssMiB));
  const peakMB = peak * 1.048576;
  return {
    title: `Verification: ${n} TLS endpoints`,
    rows: [
      {
        measure: `TLS handshake, one probe at a time (median of 40 per run; the server adds ${options.latencyMs} ms)`,
        value: formatMs(handshake),
      },
      {
        measure: `Verify ${n} endpoints, concurrency ${c}: wall time (runs: ${withLatency.map((r) => formatMs(r.wallMs)).join(", ")})`,
        value: formatMs(wall),
        goal: `<= 2 x (${n} / ${c}) x handshake = ${formatMs(goalMs)}`,
        met: wall <= goalMs,
      },
      {
        measure: `Peak RSS of the verifying process (worst of ${withLatency.length + bare.length} processes)`,
        value: `${peak.toFixed(1)} MiB (${peakMB.toFixed(1)} MB)`,
        goal: `< ${VERIFY_RSS_GOAL_MB} MB`,
        met: peakMB < VERIFY_RSS_GOAL_MB,
      },
      {
        measure: "RSS at start (modules loaded, runtime and inventory built, nothing probed)",
        value: `${median(withLatency.map((r) => r.rssStartMiB)).toFixed(1)} MiB`,
      },
      {
        measure: `Reference: ${n} endpoints with no added latency (handshakes bound by this machine's CPU; handshake ${formatMs(median(bare.map((r) => r.handshakeMs)))})`,
        value: formatMs(median(bare.map((r) => r.wallMs))),
      },
    ],
    notes: [
      `Each run is a fresh \`node\` process (bench/verifyChild.ts) that builds a runtime with an in-memory inventory of ${n} App Service certificates, each with its own domain (eNNNNN.${SUFFIX}), and runs verifyInventory over it (probes, judging, recording each result in the inventory; no ledger, so no service call) with concurrency ${c} (its default). Every domain leads to one TLS server in the parent process through CERTSCHED_VERIFY_CONNECT_TO (\`::127.0.0.1:PORT\`); the server answers each SNI name with one wildcard certificate (*.${SUFFIX}) from a throwaway CA the run trusts (\`ca\`), so every result is ok. Peak RSS is the child's getrusage maxrss.`,
      `The server holds each handshake ${options.latencyMs} ms before answering the ClientHello (its SNI callback): that stands for the network round trips of real endpoints (${options.latencyMs} ms: TCP's and TLS 1.3's, at ${options.latencyMs / 2} ms each, as to a host across the internet), which loopback does not have, so the run's concurrency shows as it would there. The probes' own CPU (one SecureContext per connection, reading the peer chain, parsing it with X509Certificate) is paid on one JavaScript thread and does not overlap with itself, whatever the concurrency. The handshake time of the goal is measured in the same process just before the run: 40 single probes (connect, handshake, close) one at a time, median. Without added latency the handshakes are bound by this machine's CPU (client and server on the same cores), which no concurrency beyond the core count can hide: that line is a reference, not a goal.`,
    ],
  };
}
