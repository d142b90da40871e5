import { readdirSync } from "node:fs";
import { join } from "node:path";
import { build, type Metafile } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * Importing a function module must not load the OpenTelemetry SDK or the Azure Monitor
 * distribution: they weigh on every cold start, and telemetry is off unless
 * APPLICATIONINSIGHTS_CONNECTION_STRING is set. esbuild bundles the function modules with code
 * splitting, so every dynamic import() becomes its own chunk; the packages reachable from an
 * entry through static imports alone are exactly what loading the module loads.
 */

const ROOT = join(import.meta.dirname, "..", "..");
const HEAVY = /^@azure\/monitor-opentelemetry|^@opentelemetry\/sdk-/;

type Edge = { path: string; kind: string; external?: boolean };

let metafile: Metafile;
let entries: Map<string, string>;

beforeAll(async () => {
  const functions = readdirSync(join(ROOT, "functions")).filter((f) => f.endsWith(".ts"));
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: functions.map((f) => join("functions", f)),
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    packages: "external",
    outdir: "out",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  metafile = result.metafile;
  entries = new Map();
  for (const [output, meta] of Object.entries(metafile.outputs)) {
    // Dynamic import() targets are entry points too; only the function modules are ours to check.
    if (meta.entryPoint?.startsWith("functions/")) entries.set(meta.entryPoint, output);
  }
}, 60_000);

/** Packages reached from an output; `dynamic` also follows import() edges. */
function packagesFrom(output: string, dynamic: boolean): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const edge of (metafile.outputs[file]?.imports ?? []) as Edge[]) {
      if (edge.kind === "dynamic-import" && !dynamic) continue;
      if (edge.external) packages.add(edge.path);
      else visit(edge.path);
    }
  };
  visit(output);
  return packages;
}

describe("loading a function module", () => {
  it("finds every function module", () => {
    expect([...entries.keys()]).toEqual(
      expect.arrayContaining([
        "functions/renewDueCertificates.ts",
        "functions/runRenewals.ts",
        "functions/createCertificate.ts",
      ]),
    );
  });

  it("never loads the OpenTelemetry SDK or Azure Monitor, though a sweep can", () => {
    for (const [entry, output] of entries) {
      const loaded = [...packagesFrom(output, false)];
      expect(
        loaded.filter((p) => HEAVY.test(p)),
        entry,
      ).toEqual([]);
    }
    // The check can fail: through import() edges the sweep's module does reach the distribution.
    const sweep = entries.get("functions/renewDueCertificates.ts") ?? "";
    expect([...packagesFrom(sweep, true)]).toContain("@azure/monitor-opentelemetry");
  });

  it("loads only @azure/functions for the preflight functions; their work, ARM SDKs included, on first call", () => {
    const preflight = [
      "functions/preflightCertificates.ts",
      "functions/getPreflight.ts",
      "functions/runPreflight.ts",
    ];
    for (const entry of preflight) {
      const output = entries.get(entry);
      expect(output, entry).toBeDefined();
      expect([...packagesFrom(output ?? "", false)], entry).toEqual(["@azure/functions"]);
      // The check can fail: through import() edges the handler's work is reached (zod, at least).
      expect([...packagesFrom(output ?? "", true)].length, entry).toBeGreaterThan(1);
    }
    // Nothing registered loads the ARM SDKs preflight uses (cold start does not grow).
    for (const [entry, output] of entries) {
      expect(
        [...packagesFrom(output, false)].filter((p) => p.startsWith("@azure/arm-")),
        entry,
      ).toEqual([]);
    }
  });
});
