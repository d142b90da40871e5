import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, connect as netConnect, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadSettings } from "../shared/app/config/settings.js";
import { sandboxSettings, startSimulator } from "../sim/index.js";
import { startAzurite } from "../test/support/azurite.js";
import { dueCertificates } from "./dueCertificates.js";
import type { Section } from "./report.js";
import { sequentialBaseline } from "./sequentialBaseline.js";
import { formatMs, formatRatio, median } from "./stats.js";

/**
 * How soon each command that talks to something starts talking, as a ratio to
 * `certsched --version` (which only starts and exits) in the same run; and the 120-certificate
 * sweep with the CLI's process included, against the sequential baseline.
 */
export interface CliCommandStartOptions {
  readonly root: string;
  /** The CLI file measured, relative to root: what `bin` runs (dist/bin/certsched.js). */
  readonly cli?: string;
  readonly rounds: number;
  readonly warmupRounds: number;
  /** Due certificates of the whole-sweep figure (bench/main.ts: 120). */
  readonly sweepCertificates: number;
  /** Real-time latency the simulator adds to every service response in the sweep figure, ms. */
  readonly latencyMs: number;
  /** Runs of the whole CLI sweep (and of the baseline). */
  readonly sweepRounds: number;
  /**
   * The Nodes each command is started with, interleaved in one run: each without and with the
   * compile cache (cli/compileCache.ts) when it has one. Default: this process's Node alone.
   */
  readonly nodes?: readonly NodeUnderTest[];
  readonly progress: (line: string) => void;
}

/** A Node binary the CLI is started with. */
export interface NodeUnderTest {
  readonly path: string;
  /** `v24.1.0`. */
  readonly version: string;
}

/** One way of starting the CLI: a Node, its compile cache off or on (primed by the warm-up). */
interface Launch {
  readonly key: string;
  readonly node: string;
  readonly env: Record<string, string>;
  /** The first request's goal applies (a supported Node, as a user runs it: cache on). */
  readonly goal: boolean;
}

/** Node 22.1+ keeps compiled code between runs (module.enableCompileCache). */
const hasCompileCache = (version: string) => {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  return major > 22 || (major === 22 && minor >= 1);
};

function launchesOf(nodes: readonly NodeUnderTest[], cacheHome: string): Launch[] {
  return nodes.flatMap((n) => {
    const off: Launch = {
      key: `Node ${n.version}${hasCompileCache(n.version) ? ", compile cache off" : ""}`,
      node: n.path,
      env: { NODE_DISABLE_COMPILE_CACHE: "1" },
      goal: false,
    };
    if (!hasCompileCache(n.version)) return [off];
    const on: Launch = {
      key: `Node ${n.version}, compile cache on`,
      node: n.path,
      env: { XDG_CACHE_HOME: cacheHome },
      goal: true,
    };
    return [off, on];
  });
}

/** A TCP pass-through that notes when its first connection arrives (performance.now(), ms). */
interface Tap {
  readonly port: number;
  /** First connection since the last reset(); undefined: none yet. */
  readonly firstAt: number | undefined;
  reset(): void;
  close(): Promise<void>;
}

/** `target` undefined: connections are noted and closed (the probe's peer is never needed). */
async function startTap(target?: { host: string; port: number }): Promise<Tap> {
  let firstAt: number | undefined;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    firstAt ??= performance.now();
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    if (!target) return void socket.destroy();
    const upstream = netConnect(target.port, target.host);
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => socket.destroy());
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    get firstAt() {
      return firstAt;
    },
    reset: () => {
      firstAt = undefined;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

interface Run {
  /** Spawn to exit, ms. */
  readonly exitMs: number;
  readonly code: number | null;
  readonly stderr: string;
}

/** One fresh `certsched <args>`: spawn to exit; `started` is when it was spawned. */
function runCli(
  cli: string,
  args: readonly string[],
  env: Record<string, string>,
  cwd: string,
  onSpawn: (started: number) => void = () => {},
  node = process.execPath,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    onSpawn(started);
    // An empty `cli`: Node alone (`node -e 0`), the floor every command starts from.
    const argv = cli === "" ? ["-e", "0"] : [cli, ...args];
    const child = spawn(node, argv, {
      cwd,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ exitMs: performance.now() - started, code, stderr }));
  });
}

/** One command of the per-command table: what it runs, what it talks to first, its exit codes. */
interface Probe {
  readonly key: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  /** undefined: timed to its exit (it sends nothing). */
  readonly tap: Tap | undefined;
  /** The exit codes that mean it ran as meant (verify --domain of a closed port reports it: 1). */
  readonly exits: readonly number[];
}

async function measureProbe(
  cli: string,
  cwd: string,
  probe: Probe,
  launch: Launch,
): Promise<number> {
  probe.tap?.reset();
  let started = 0;
  const env = { ...launch.env, ...probe.env };
  const run = await runCli(
    cli,
    probe.args,
    env,
    cwd,
    (at) => {
      started = at;
    },
    launch.node,
  );
  if (!probe.exits.includes(run.code ?? -1)) {
    throw new Error(`certsched ${probe.args.join(" ")} exited ${run.code}: ${run.stderr}`);
  }
  if (!probe.tap) return run.exitMs;
  const first = probe.tap.firstAt;
  if (first === undefined) {
    throw new Error(`certsched ${probe.args.join(" ")} sent nothing: ${run.stderr}`);
  }
  return first - started;
}

/**
 * The per-command start figures of each launch: first connection (or exit) after spawn; the
 * launches and commands interleaved, so that each launch's ratios come from the same minutes.
 */
async function perCommand(
  options: CliCommandStartOptions,
  cli: string,
  cwd: string,
  launches: readonly Launch[],
) {
  const sim = await startSimulator({ certificates: dueCertificates(20, new Date()) });
  const azurite = await startAzurite();
  const service = await startTap({ host: "127.0.0.1", port: Number(new URL(sim.baseUrl).port) });
  const table = await startTap({ host: "127.0.0.1", port: azurite.port });
  const peer = await startTap();
  try {
    const simPort = `:${new URL(sim.baseUrl).port}`;
    const serviceEnv = Object.fromEntries(
      Object.entries(sandboxSettings(sim)).map(([k, v]) => [
        k,
        v.replace(simPort, `:${service.port}`),
      ]),
    );
    const storage = azurite.connectionString.replace(
      `TableEndpoint=http://127.0.0.1:${azurite.port}/`,
      `TableEndpoint=http://127.0.0.1:${table.port}/`,
    );
    const probes: Probe[] = [
      { key: "node", args: [], env: {}, tap: undefined, exits: [0] },
      { key: "version", args: ["--version"], env: {}, tap: undefined, exits: [0] },
      {
        key: "sweep --dry-run",
        args: ["sweep", "--dry-run"],
        env: serviceEnv,
        tap: service,
        exits: [0],
      },
      { key: "due", args: ["due"], env: serviceEnv, tap: service, exits: [0] },
      {
        key: "verify --domain",
        args: ["verify", "--domain", "www.contoso.com", "--timeout", "2s"],
        env: { CERTSCHED_VERIFY_CONNECT_TO: `::127.0.0.1:${peer.port}` },
        tap: peer,
        exits: [1],
      },
      {
        key: "status --offline",
        args: ["status", "--offline"],
        env: { AzureWebJobsStorage: storage },
        tap: table,
        exits: [0],
      },
    ];
    const samples = new Map(
      launches.map((l) => [l.key, new Map<string, number[]>(probes.map((p) => [p.key, []]))]),
    );
    for (let round = 0; round < options.warmupRounds + options.rounds; round++) {
      for (const launch of launches) {
        for (const probe of probes) {
          const ms = await measureProbe(probe.key === "node" ? "" : cli, cwd, probe, launch);
          if (round >= options.warmupRounds) samples.get(launch.key)?.get(probe.key)?.push(ms);
        }
      }
      if ((round + 1) % 5 === 0) {
        options.progress(
          `cli command start: ${round + 1}/${options.warmupRounds + options.rounds} rounds`,
        );
      }
    }
    return new Map(
      [...samples].map(([launch, byProbe]) => [
        launch,
        new Map([...byProbe].map(([key, values]) => [key, median(values)])),
      ]),
    );
  } finally {
    await Promise.all([service.close(), table.close(), peer.close()]);
    await sim.close();
    await azurite.stop();
  }
}

/** `certsched sweep` of N due certificates, spawn to exit, and the sequential baseline. */
async function wholeSweep(options: CliCommandStartOptions, cli: string, cwd: string) {
  const n = options.sweepCertificates;
  const cliMs: number[] = [];
  const baselineMs: number[] = [];
  for (let round = 1; round <= options.sweepRounds; round++) {
    const baseSim = await startSimulator({
      latencyMs: options.latencyMs,
      certificates: dueCertificates(n, new Date()),
    });
    try {
      const run = await sequentialBaseline(loadSettings(sandboxSettings(baseSim)));
      if (run.listed !== n || run.renewMs.length !== n) {
        throw new Error(`baseline of ${n}: listed ${run.listed}, renewed ${run.renewMs.length}`);
      }
      baselineMs.push(run.totalMs);
    } finally {
      await baseSim.close();
    }
    const sim = await startSimulator({
      latencyMs: options.latencyMs,
      certificates: dueCertificates(n, new Date()),
    });
    try {
      const run = await runCli(cli, ["sweep"], sandboxSettings(sim), cwd);
      const renewed = sim.requestsFor("publicRenew").length;
      if (run.code !== 0 || renewed !== n) {
        throw new Error(
          `certsched sweep of ${n}: exit ${run.code}, ${renewed} renew calls: ${run.stderr}`,
        );
      }
      cliMs.push(run.exitMs);
    } finally {
      await sim.close();
    }
    options.progress(
      `cli sweep N=${n} round ${round}/${options.sweepRounds}: baseline ${formatMs(baselineMs.at(-1) ?? Number.NaN)}, certsched sweep ${formatMs(cliMs.at(-1) ?? Number.NaN)}`,
    );
  }
  return { cliMs, baselineMs };
}

/** The rows of one launch: Node alone, --version, and each command's first connection : --version. */
function launchRows(
  launch: Launch,
  starts: ReadonlyMap<string, number>,
): Section["rows"][number][] {
  const version = starts.get("version") ?? Number.NaN;
  const node = starts.get("node") ?? Number.NaN;
  const rows: Section["rows"][number][] = [
    { measure: `${launch.key}: \`node -e 0\`, spawn to exit`, value: formatMs(node) },
    {
      measure: `${launch.key}: \`certsched --version\`, spawn to exit`,
      value: `${formatMs(version)} (${formatRatio(version / node)} \`node -e 0\`)`,
    },
  ];
  for (const [key, ms] of starts) {
    if (key === "version" || key === "node") continue;
    const ratio = ms / version;
    rows.push({
      measure: `${launch.key}: \`certsched ${key}\`, spawn to its first connection : --version`,
      value: `${formatRatio(ratio)} (${formatMs(ms)})`,
      ...(launch.goal ? { goal: "<= 2.00x", met: ratio <= 2 } : {}),
    });
  }
  return rows;
}

export async function cliCommandStartBench(options: CliCommandStartOptions): Promise<Section> {
  const cliFile = options.cli ?? path.join("dist", "bin", "certsched.js");
  const cli = path.join(options.root, cliFile);
  // No local.settings.json: only what each run is given.
  const cwd = await mkdtemp(path.join(tmpdir(), "certsched-bench-cli-"));
  // The compile cache's home for this run: empty at first, primed by the warm-up round(s).
  const cacheHome = await mkdtemp(path.join(tmpdir(), "certsched-bench-cache-"));
  const nodes = options.nodes ?? [{ path: process.execPath, version: process.version }];
  const launches = launchesOf(nodes, cacheHome);
  try {
    const starts = await perCommand(options, cli, cwd, launches);
    const sweep = await wholeSweep(options, cli, cwd);
    const rows = launches.flatMap((l) => launchRows(l, starts.get(l.key) ?? new Map()));
    const cliSweep = median(sweep.cliMs);
    const baseline = median(sweep.baselineMs);
    const speedUp = baseline / cliSweep;
    rows.push({
      measure: `${options.sweepCertificates} due, ${options.latencyMs} ms per renewal, CLI process included (Node ${process.version}): sequential : \`certsched sweep\``,
      value: `${formatRatio(speedUp)} (sweep ${formatMs(cliSweep)}, runs ${sweep.cliMs.map(formatMs).join(", ")}; sequential ${formatMs(baseline)})`,
      goal: ">= 6.80x",
      met: speedUp >= 6.8,
    });
    return {
      title: "CLI start per command",
      rows,
      notes: [
        `Each sample is a fresh \`node ${cliFile} ...\` (cwd: an empty directory, environment: PATH and the command's settings), timed in this process from just before spawn to the first TCP connection the command opens, seen by a pass-through in front of what it talks to: the simulator (its token request first) for sweep --dry-run and due, Azurite's table endpoint for status --offline (AzureWebJobsStorage), the probed peer for verify --domain (CERTSCHED_VERIFY_CONNECT_TO; the peer closes at once, so verify exits 1). --version is timed to its exit. ${options.rounds} rounds after ${options.warmupRounds} warm-up round(s), every Node and cache setting and command interleaved; medians.`,
        "Compile cache (cli/compileCache.ts): on Node 22.1+ the CLI keeps its compiled code in its cache folder ($XDG_CACHE_HOME/certsched/compile), so zod's, undici's and the command's chunks are compiled once, not on every start. \"off\" runs with NODE_DISABLE_COMPILE_CACHE=1 (each start compiles everything, as before); \"on\" with the cache the warm-up round filled, as every run after a user's first. Node 20 has none. The goal (first request within 2x --version) is for a supported Node as a user runs it: cache on.",
        "`--version` is close to Node's own start (the `node -e 0` rows). A command that talks to the service must read and check its settings (zod) and open a connection (undici): their chunks of the bundle are about 600 KiB to compile (without the cache) and run. `status --offline` also loads the Table client (`@azure/data-tables` and the Azure core pipeline).",
        `Whole sweep: \`certsched sweep\` (no ledger, default concurrency) spawned against a fresh simulator with ${options.sweepCertificates} due certificates and ${options.latencyMs} ms added to every service response, spawn to exit; the sequential baseline as in "Renewal sweep" (a token pair per call, one renewal at a time, in this process), measured in full. ${options.sweepRounds} run(s) of each, alternating; medians.`,
      ],
    };
  } finally {
    await rm(cwd, { recursive: true, force: true });
    await rm(cacheHome, { recursive: true, force: true });
  }
}
