#!/usr/bin/env node
/**
 * Bundles the function app for deployment: dist/bundle/index.js registers every function in
 * functions/*.ts, with @azure/functions, zod and undici inside the bundle.
 *
 * Why: a cold start on a consumption plan is paid by a caller, and Node's ESM loader spends
 * most of the start resolving and reading hundreds of small files in node_modules. One file
 * (plus chunks loaded on first use) starts several times faster (docs/performance.md).
 *
 * - Code splitting keeps dynamic imports dynamic: undici and the Azure SDKs stay out of the
 *   load path until the first call needs them.
 * - @azure/functions-core is provided by the Functions host at run time: never bundled.
 * - The Azure SDKs and OpenTelemetry are only ever imported lazily, are large and resolve
 *   optional pieces at run time: they stay external and ship in node_modules.
 *
 * Usage: node scripts/bundle.mjs [outdir]   (default dist/bundle; without outdir it also bundles
 * the CLI from the tsc output into dist/bin/, see bundleCli)
 */
import { readdir, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Modules resolved from node_modules at run time, never bundled. */
export const EXTERNAL = [
  "@azure/functions-core",
  "@azure/identity",
  "@azure/keyvault-secrets",
  "@azure/keyvault-certificates",
  "@azure/data-tables",
  // Preflight's ARM clients: loaded by import() when preflight runs, never at registration.
  "@azure/arm-dns",
  "@azure/arm-appservice",
  // One instance with the SDKs above: shared/adapters/storage/azureSdkLog.ts filters the SDKs' own logger.
  "@azure/logger",
  "@azure/monitor-opentelemetry",
  "@opentelemetry/*",
];

// Bundled CommonJS (undici, @azure/functions) calls require() for Node built-ins: give the
// ES module output a real one.
export const BANNER =
  'import { createRequire as __certschedCreateRequire } from "node:module";\n' +
  "const require = __certschedCreateRequire(import.meta.url);";

/**
 * zod re-exports every translation of its error messages (`z.locales`, ~300 KiB, two fifths of
 * what the app loads at start). certsched writes its own messages and never switches locale:
 * the bundle keeps English only (zod registers it by itself, from locales/en.js), so
 * `z.locales.en` still exists and any other `z.locales.xx` is undefined.
 * @type {import("esbuild").Plugin}
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)) return undefined;
      return {
        path: path.join(path.dirname(args.importer), "..", "locales", "en.js"),
        namespace: "zod-locales",
      };
    });
    build.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: path.dirname(args.path),
      loader: "js",
    }));
  },
};

/**
 * undici is CommonJS and certsched imports it dynamically (shared/lib/http/httpClient.ts). Node's own
 * ES module view of it has named exports (`request`, `Agent`, ...); esbuild's split chunk would
 * offer only `default`, and every call would fail. This shim gives the chunk the same named
 * exports Node gives, read from undici itself at bundle time.
 * @param {string} root
 * @returns {import("esbuild").Plugin}
 */
function undiciNamedExports(root) {
  const requireFromRoot = createRequire(path.join(root, "package.json"));
  return {
    name: "undici-named-exports",
    setup(build) {
      build.onResolve({ filter: /^undici$/ }, () => ({ path: "undici", namespace: "undici-esm" }));
      build.onLoad({ filter: /.*/, namespace: "undici-esm" }, () => {
        const real = requireFromRoot.resolve("undici");
        const names = Object.keys(requireFromRoot("undici")).filter(
          (name) => name !== "default" && /^[A-Za-z_$][\w$]*$/.test(name),
        );
        return {
          contents: [
            `import undici from ${JSON.stringify(real)};`,
            "export default undici;",
            `export const { ${names.join(", ")} } = undici;`,
          ].join("\n"),
          resolveDir: root,
          loader: "js",
        };
      });
    },
  };
}

/**
 * What both bundles share: ES module chunks split at every dynamic import (a lazily imported
 * module stays lazy), for Node 20, with English-only zod and undici's named exports.
 * @param {string} root
 * @param {string} outdir
 * @param {readonly string[]} external
 * @returns {import("esbuild").BuildOptions}
 */
function sharedOptions(root, outdir, external) {
  return {
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outdir,
    chunkNames: "chunks/[name]-[hash]",
    external: [...external],
    plugins: [zodEnglishOnly, undiciNamedExports(root)],
    banner: { js: BANNER },
    // Whitespace and syntax only: names stay readable in stack traces.
    minifyWhitespace: true,
    minifySyntax: true,
    metafile: true,
    logLevel: "warning",
  };
}

/**
 * Builds the bundle; returns the entry file's path and esbuild's metafile (what went in).
 * @param {{ root?: string, outdir?: string }} [options]
 */
export async function bundleFunctionApp(options = {}) {
  const root = options.root ?? ROOT;
  const outdir = path.resolve(root, options.outdir ?? "dist/bundle");
  const functions = (await readdir(path.join(root, "functions")))
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".d.ts"))
    .sort();
  if (functions.length === 0) throw new Error(`no functions/*.ts under ${root}`);
  // One entry loading every registration module, as the worker's "main" glob would; it also
  // re-exports the handlers, so the bundle itself can be tested (test/bench/bundle.test.ts).
  const entry = functions.map((name) => `export * from "./functions/${name}";`).join("\n");

  await rm(outdir, { recursive: true, force: true });
  const result = await build({
    ...sharedOptions(root, outdir, EXTERNAL),
    stdin: { contents: entry, resolveDir: root, sourcefile: "index.ts", loader: "ts" },
    entryNames: "index",
    sourcemap: "linked",
  });
  // The output is ES modules wherever it is copied, whatever package.json is above it.
  await writeFile(path.join(outdir, "package.json"), `${JSON.stringify({ type: "module" })}\n`);
  return { entry: path.join(outdir, "index.js"), functions, metafile: result.metafile };
}

/**
 * What the CLI bundle leaves to node_modules: what the function app's leaves (EXTERNAL), but
 * @azure/data-tables. `status --offline` and every store read it before their first request, so
 * it is a chunk; it reads no file at run time and takes @azure/logger (still external, one
 * instance for azureSdkLog.ts) from node_modules like the rest.
 */
export const CLI_EXTERNAL = EXTERNAL.filter((name) => name !== "@azure/data-tables");

/**
 * Bundles the CLI from the tsc output (dist/cli/main.js) into dist/bin/certsched.js plus chunks,
 * what `bin` runs. Why: Node's ES module loader reads and links hundreds of small files before a
 * command's first request; one entry and a chunk per lazily imported command starts
 * in a fraction of that (docs/performance.md, "CLI start per command").
 *
 * Beside the output, `inputs.json` maps each output file to the modules inside it (paths
 * relative to the root, as in dist/ and node_modules/), so a test can tell which sources a
 * command loaded from the chunks it loaded (test/cli/main.startImports.test.ts).
 * @param {{ root?: string, outdir?: string }} [options]
 */
export async function bundleCli(options = {}) {
  const root = options.root ?? ROOT;
  const outdir = path.resolve(root, options.outdir ?? "dist/bin");
  await rm(outdir, { recursive: true, force: true });
  const result = await build({
    ...sharedOptions(root, outdir, CLI_EXTERNAL),
    entryPoints: { certsched: path.join(root, "dist", "cli", "main.js") },
  });
  await writeFile(path.join(outdir, "package.json"), `${JSON.stringify({ type: "module" })}\n`);
  const inputs = Object.fromEntries(
    Object.entries(result.metafile.outputs).map(([file, output]) => [
      path.relative(outdir, path.resolve(root, file)),
      Object.keys(output.inputs).map((input) => input.replace(/^[a-z-]+:/, "")),
    ]),
  );
  await writeFile(path.join(outdir, "inputs.json"), `${JSON.stringify(inputs, null, 1)}\n`);
  return { entry: path.join(outdir, "certsched.js"), metafile: result.metafile };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const kib = (metafile) =>
    Math.round(Object.values(metafile.outputs).reduce((sum, o) => sum + o.bytes, 0) / 1024);
  const { entry, functions, metafile } = await bundleFunctionApp({ outdir: process.argv[2] });
  console.log(
    `bundled ${functions.length} functions into ${path.relative(ROOT, entry)} (${kib(metafile)} KiB with chunks and maps)`,
  );
  // The CLI is bundled from the tsc output: only the default build (no outdir) has one fresh.
  if (process.argv[2] === undefined) {
    const cli = await bundleCli();
    console.log(
      `bundled the CLI into ${path.relative(ROOT, cli.entry)} (${kib(cli.metafile)} KiB with chunks)`,
    );
  }
}
