#!/usr/bin/env node
/**
 * `npm start`: builds certsched if the build is missing or older than the sources, then runs
 * one sweep: against the built-in simulators (the sandbox: two accounts, "contoso" and
 * "fabrikam", declared in CERTSCHED_ACCOUNTS) unless a service is configured, in which case
 * against that: CERTSCHED_BASE_URL (one account), or CERTSCHED_ACCOUNTS / CERTSCHED_ACCOUNTS_FILE
 * (many), in the environment or in the "Values" of local.settings.json. Extra arguments go to
 * `certsched sweep` (`npm start -- --dry-run`). `--build-only` builds if needed and stops (the
 * tests use it). Plain JavaScript on purpose: it must run before anything is compiled.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// What package.json `bin` runs: the CLI bundled from the tsc output (scripts/bundle.mjs).
const entry = join(root, "dist", "bin", "certsched.js");
const SOURCE_DIRS = ["functions", "shared", "sim", "cli"];
// The bundler settings too: a changed scripts/bundle.mjs makes a different CLI.
const BUILD_CONFIGS = ["tsconfig.json", "tsconfig.build.json", "scripts/bundle.mjs"];

/** Newest modification time (ms) of the TypeScript sources and build settings. */
function newestSource() {
  let newest = 0;
  const visit = (dir) => {
    if (!existsSync(dir)) return;
    for (const item of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, item.name);
      if (item.isDirectory()) visit(path);
      else if (item.name.endsWith(".ts")) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of SOURCE_DIRS) visit(join(root, dir));
  for (const file of BUILD_CONFIGS) {
    const path = join(root, file);
    if (existsSync(path)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function needsBuild() {
  return !existsSync(entry) || statSync(entry).mtimeMs < newestSource();
}

/**
 * tsc, then the CLI bundle (what `npm run build` does for the CLI), run directly so it works
 * however npm was invoked; false when it failed.
 */
async function build() {
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  if (!existsSync(tsc)) {
    console.error(
      "certsched: TypeScript (a devDependency) is not installed; run `npm install` (with dev dependencies) first.",
    );
    return false;
  }
  console.error("certsched: building (tsc -p tsconfig.build.json, then the CLI bundle)...");
  // --noEmitOnError: a failed build must not leave a fresh-looking dist/ that the next start runs.
  const result = spawnSync(
    process.execPath,
    [tsc, "-p", join(root, "tsconfig.build.json"), "--noEmitOnError"],
    {
      cwd: root,
      stdio: ["ignore", "inherit", "inherit"],
    },
  );
  if (result.status !== 0) {
    console.error("certsched: the build failed (see above); nothing was run.");
    return false;
  }
  try {
    const { bundleCli } = await import(pathToFileURL(join(root, "scripts", "bundle.mjs")).href);
    await bundleCli({ root });
  } catch (error) {
    // esbuild is a devDependency too; a half-written dist/bin must not look fresh next time.
    rmSync(join(root, "dist", "bin"), { recursive: true, force: true });
    console.error(
      `certsched: bundling the CLI failed: ${error?.message ?? error}; nothing was run.`,
    );
    return false;
  }
  return true;
}

/** The settings that name a service to sweep instead of the sandbox, in the order they win. */
const SERVICE_SETTINGS = ["CERTSCHED_ACCOUNTS", "CERTSCHED_ACCOUNTS_FILE", "CERTSCHED_BASE_URL"];

/**
 * The first of SERVICE_SETTINGS set as the CLI will see it, `{ name, value }`: the environment
 * first, then the "Values" of local.settings.json in the working directory (one file serves
 * `func start` and the CLI); undefined when none is set.
 */
function configuredService() {
  let values = {};
  try {
    const file = JSON.parse(readFileSync(join(process.cwd(), "local.settings.json"), "utf8"));
    if (file?.Values && typeof file.Values === "object") values = file.Values;
  } catch {
    // No file, or not JSON: the CLI itself reports a broken file when it reads it.
  }
  for (const name of SERVICE_SETTINGS) {
    const fromEnv = (process.env[name] ?? "").trim();
    if (fromEnv !== "") return { name, value: fromEnv };
    const value = values[name];
    if (typeof value === "string" && value.trim() !== "") return { name, value: value.trim() };
  }
  return undefined;
}

/** What npm start says it sweeps: never the accounts' JSON, which holds their secrets. */
function describe(service) {
  if (service.name === "CERTSCHED_BASE_URL") {
    return `sweeping ${service.value} (CERTSCHED_BASE_URL is set)`;
  }
  if (service.name === "CERTSCHED_ACCOUNTS_FILE") {
    return `sweeping the accounts declared in ${service.value} (CERTSCHED_ACCOUNTS_FILE is set)`;
  }
  return "sweeping the accounts CERTSCHED_ACCOUNTS declares";
}

async function main() {
  const args = process.argv.slice(2);
  const buildOnly = args.includes("--build-only");
  if (needsBuild() && !(await build())) return 1;
  if (buildOnly) return 0;
  const service = configuredService();
  const sweep = service ? ["sweep", ...args] : ["sweep", "--sandbox", ...args];
  if (service) console.error(`certsched: ${describe(service)}`);
  const result = spawnSync(process.execPath, [entry, ...sweep], { stdio: "inherit" });
  if (result.error) {
    console.error(`certsched: could not run the CLI: ${result.error.message}`);
    return 1;
  }
  return result.status ?? 1;
}

process.exitCode = await main();
