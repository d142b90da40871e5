import { spawnSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Gate, Section } from "./report.js";
import { formatMs, median } from "./stats.js";

/**
 * Preflight adds nothing to the cold start of the functions that do not run it. Each
 * sample is a fresh process that imports one handler module (as the worker does on the first
 * call), then the two ARM SDKs preflight uses. If the handler had loaded them, the second import
 * would cost nothing; it costs what the SDKs cost alone, so the handler left them out. The
 * preflight handlers are measured the same way: they load the SDKs only at the first ARM call.
 */

const SDKS = ["@azure/arm-dns", "@azure/arm-appservice"];

const PROBE = `const [handler, ...sdks] = process.argv.slice(1);
const t0 = performance.now();
if (handler !== "-") await import(handler);
const t1 = performance.now();
for (const sdk of sdks) await import(sdk);
const t2 = performance.now();
process.stdout.write(JSON.stringify({ handlerMs: t1 - t0, sdkMs: t2 - t1 }));`;

/** Handlers that never run preflight, then the two that do. */
const HANDLERS = [
  "renewDueCertificates",
  "runQueuedRenewals",
  "getCertificate",
  "listCertificates",
  "dashboard",
  "verifyCertificates",
  "preflightCertificates",
  "runPreflight",
];
const RUNS_PREFLIGHT = new Set(["preflightCertificates", "runPreflight"]);

function once(root: string, handler: string | undefined): { handlerMs: number; sdkMs: number } {
  const target = handler
    ? pathToFileURL(path.join(root, "dist", "functions", "handlers", `${handler}.js`)).href
    : "-";
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", PROBE, target, ...SDKS], {
    cwd: root,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "" },
  });
  if (child.status !== 0) {
    throw new Error(
      `loading ${handler ?? "the SDKs"} failed (exit ${child.status}): ${child.stderr}`,
    );
  }
  return JSON.parse(child.stdout) as { handlerMs: number; sdkMs: number };
}

export async function preflightLoadBench(options: {
  readonly root: string;
  readonly rounds: number;
  readonly progress: (line: string) => void;
}): Promise<{ section: Section; gate: Gate }> {
  const alone: number[] = [];
  const byHandler = new Map<string, { handlerMs: number[]; sdkMs: number[] }>(
    HANDLERS.map((h) => [h, { handlerMs: [], sdkMs: [] }]),
  );
  once(options.root, undefined);
  for (let round = 0; round < options.rounds; round++) {
    alone.push(once(options.root, undefined).sdkMs);
    for (const h of HANDLERS) {
      const sample = once(options.root, h);
      byHandler.get(h)?.handlerMs.push(sample.handlerMs);
      byHandler.get(h)?.sdkMs.push(sample.sdkMs);
    }
    options.progress(`preflight load: ${round + 1}/${options.rounds} rounds`);
  }
  const sdkAlone = median(alone);
  const rows: Section["rows"][number][] = [
    { measure: "@azure/arm-dns + @azure/arm-appservice imported alone", value: formatMs(sdkAlone) },
  ];
  const preloaded: string[] = [];
  for (const h of HANDLERS) {
    const m = byHandler.get(h);
    const handlerMs = median(m?.handlerMs ?? []);
    const sdkMs = median(m?.sdkMs ?? []);
    // Loaded already, the SDKs' import would take a fraction of a millisecond.
    const left = sdkMs >= 0.5 * sdkAlone;
    if (!left) preloaded.push(h);
    rows.push({
      measure: `${h}${RUNS_PREFLIGHT.has(h) ? " (runs preflight)" : ""}: handler import; then the ARM SDKs`,
      value: `${formatMs(handlerMs)}; then ${formatMs(sdkMs)}`,
      goal: "SDKs not loaded by the handler (their import after it >= 0.5x alone)",
      met: left,
    });
  }
  return {
    section: {
      title: "Preflight and cold start",
      rows,
      notes: [
        `Each sample is a fresh \`node --input-type=module\` process (cwd = the project, empty environment but PATH) that imports one handler module from dist/functions/handlers/ (what the worker loads on a function's first call), then ${SDKS.join(" and ")}. ${options.rounds} rounds; medians.`,
        "A handler that had loaded the SDKs would leave their second import at well under a millisecond; an import that still costs what the SDKs cost alone shows the handler left them out. The preflight handlers load them only at their first ARM call (shared/adapters/preflight/armLookups.ts), so even their cold start does not pay for them until preflight reads ARM.",
      ],
    },
    gate: {
      name: "preflight adds nothing to other functions' cold start",
      ok: preloaded.length === 0,
      detail:
        preloaded.length === 0
          ? "no handler loads the ARM SDKs at import"
          : `loaded by: ${preloaded.join(", ")}`,
    },
  };
}
