#!/usr/bin/env node
/**
 * `npm run bench [-- --quick]`: builds what it measures, then runs bench/main.ts.
 *
 * Plain JavaScript so it runs on a fresh clone after `npm install` with nothing compiled:
 * 1. `tsc -p tsconfig.build.json` (what `npm run build` does) for dist/functions/*.js;
 * 2. scripts/bundle.mjs for dist/bundle/ (the self-contained deployment bundle) and dist/bin/
 *    (the CLI as `bin` runs it);
 * 3. esbuild bundles bench/*.ts into node_modules/.cache/certsched-bench/ (packages stay
 *    external and resolve from the project's node_modules) and the result is imported.
 * --quick: fewer rounds; the report goes to node_modules/.cache/certsched-bench/performance.quick.md.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { builtinModules, createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CACHE = path.join(ROOT, "node_modules", ".cache", "certsched-bench");
const require = createRequire(import.meta.url);

function step(line) {
  console.error(`[bench] ${line}`);
}

function compileWithTsc(functions) {
  step("tsc -p tsconfig.build.json (npm run build)");
  const tsc = spawnSync(
    process.execPath,
    [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.build.json"],
    { cwd: ROOT, stdio: "inherit" },
  );
  // Measuring a broken build would publish figures for code that does not compile.
  if (tsc.status !== 0) throw new Error(`tsc exited ${tsc.status}: fix the build first`);
  const entries = functions.map((name) =>
    path.join(ROOT, "dist", "functions", name.replace(/\.ts$/, ".js")),
  );
  const missing = entries.filter((file) => !existsSync(file));
  if (missing.length > 0) throw new Error(`tsc did not emit ${missing.join(", ")}`);
  return entries;
}

const kib = (bytes) => `${Math.round(bytes / 1024)} KiB`;

/** What the bundle loads at start and what it leaves for first use, from esbuild's metafile. */
function describeLoadPath(metafile, entry) {
  const outputs = Object.entries(metafile.outputs).filter(([file]) => !file.endsWith(".map"));
  const entryKey = path.relative(ROOT, entry).split(path.sep).join("/");
  const packageOf = (input) => {
    const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
    return m ? m[1] : "certsched (functions/, shared/)";
  };
  const composition = (output) => {
    const sizes = new Map();
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      sizes.set(packageOf(input), (sizes.get(packageOf(input)) ?? 0) + bytesInOutput);
    }
    return [...sizes]
      .filter(([, bytes]) => bytes > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([name, bytes]) => `${name} ${kib(bytes)}`)
      .join(", ");
  };
  const entryOutput = outputs.find(([file]) => file === entryKey)?.[1];
  if (!entryOutput) return [];
  // Chunks the entry imports statically (transitively) load with it; the rest wait for import().
  const byFile = new Map(outputs);
  const eager = new Set();
  const pending = [entryKey];
  while (pending.length > 0) {
    const file = pending.pop();
    if (eager.has(file)) continue;
    eager.add(file);
    for (const imp of byFile.get(file)?.imports ?? []) {
      if (imp.kind === "import-statement" && !imp.external) pending.push(imp.path);
    }
  }
  const eagerBytes = outputs.filter(([f]) => eager.has(f)).reduce((s, [, o]) => s + o.bytes, 0);
  const lazy = outputs.filter(([file]) => !eager.has(file));
  const builtins = new Set(builtinModules);
  const packageImports = (files, kinds) => [
    ...new Set(
      files.flatMap(([, o]) =>
        o.imports
          .filter((i) => i.external && kinds.includes(i.kind))
          .filter((i) => !i.path.startsWith("node:") && !builtins.has(i.path))
          .map((i) => i.path),
      ),
    ),
  ];
  const eagerFiles = outputs.filter(([f]) => eager.has(f));
  const atStart = packageImports(eagerFiles, ["import-statement", "require-call"]);
  const onFirstUse = packageImports(outputs, ["dynamic-import", "import-statement"]).filter(
    (p) => !atStart.includes(p),
  );
  return [
    `Bundle load path: ${kib(eagerBytes)} loaded at start; entry file: ${composition(entryOutput)}.`,
    `Bundle chunks loaded on first use: ${lazy
      .map(([file, o]) => `${path.basename(file)} (${composition(o) || kib(o.bytes)})`)
      .join("; ")}.`,
    `External packages required at start: ${atStart.join(", ") || "none"} (@azure/functions-core is the host's own; outside the host the require fails and @azure/functions goes into test mode). Imported on first use, from node_modules: ${onFirstUse.join(", ")}.`,
  ];
}

/** Node 22 and 24 (Azure's runtimes) for their own sections; those unavailable are left out. */
function findNodes() {
  return ["22", "24"].flatMap((major) => {
    step(`node scripts/node.mjs ${major} (Node ${major} from the npm registry, cached)`);
    const result = spawnSync(process.execPath, [path.join(ROOT, "scripts", "node.mjs"), major], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    const node = result.stdout.trim();
    if (result.status !== 0 || node === "") {
      step(`Node ${major} unavailable: its sections are left out`);
      return [];
    }
    return [node];
  });
}

async function main() {
  const quick = process.argv.includes("--quick");
  const functions = (await import("node:fs"))
    .readdirSync(path.join(ROOT, "functions"))
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".d.ts"))
    .sort();
  const tscEntries = compileWithTsc(functions);

  step("node scripts/bundle.mjs (deployment bundle)");
  const { bundleFunctionApp, bundleCli, EXTERNAL, BANNER } = await import(
    pathToFileURL(path.join(ROOT, "scripts", "bundle.mjs"))
  );
  const bundle = await bundleFunctionApp({ root: ROOT });
  await bundleCli({ root: ROOT });

  step("esbuild bench/*.ts");
  await rm(CACHE, { recursive: true, force: true });
  await build({
    entryPoints: [
      path.join(ROOT, "bench", "main.ts"),
      path.join(ROOT, "bench", "memoryChild.ts"),
      path.join(ROOT, "bench", "verifyChild.ts"),
      path.join(ROOT, "bench", "fanoutWorker.ts"),
    ],
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outdir: CACHE,
    // Inside node_modules no package.json says "module": the extension does.
    outExtension: { ".js": ".mjs" },
    packages: "external",
    // Except @azure/functions: CommonJS, whose named exports (HttpRequest, InvocationContext)
    // an ES module outside a bundle cannot import; the fan-out bench builds them as tests do.
    plugins: [
      {
        name: "bundle-functions",
        setup(b) {
          b.onResolve({ filter: /^@azure\/functions$/ }, () => ({
            path: path.join(
              ROOT,
              "node_modules",
              "@azure",
              "functions",
              "dist",
              "azure-functions.js",
            ),
          }));
        },
      },
    ],
    banner: {
      js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
    },
    sourcemap: "inline",
    logLevel: "warning",
  });

  // Reference only: @azure/functions alone, bundled the same way, to show what the app itself adds.
  const bareBundle = path.join(CACHE, "bare-bundle", "index.mjs");
  await build({
    stdin: { contents: 'import "@azure/functions";', resolveDir: ROOT, sourcefile: "bare.js" },
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outfile: bareBundle,
    external: EXTERNAL,
    banner: { js: BANNER },
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: "warning",
  });

  const pkg = JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8"));
  const deployed = String(pkg.main ?? "").includes("dist/bundle") ? "bundle" : "tsc";
  const { runBench } = await import(pathToFileURL(path.join(CACHE, "main.mjs")).href);
  return runBench({
    root: ROOT,
    memoryChild: path.join(CACHE, "memoryChild.mjs"),
    verifyChild: path.join(CACHE, "verifyChild.mjs"),
    fanoutWorker: path.join(CACHE, "fanoutWorker.mjs"),
    tscEntries,
    bundleEntry: bundle.entry,
    bareBundle,
    deployed,
    loadPath: describeLoadPath(bundle.metafile, bundle.entry),
    quick,
    nodes: findNodes(),
    reportPath: quick
      ? path.join(CACHE, "performance.quick.md")
      : path.join(ROOT, "docs", "performance.md"),
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(
      `[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : error}`,
    );
    process.exitCode = 2;
  },
);
