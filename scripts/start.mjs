#!/usr/bin/env node
/**
 * `npm start`: builds certsched if the build is missing or older than the sources, then runs
 * one sweep: against the built-in simulator (the sandbox) unless CERTSCHED_BASE_URL is set in
 * the environment, in which case against that service, with the rest of the settings from the
 * environment or local.settings.json. Extra arguments go to `certsched sweep`
 * (`npm start -- --dry-run`). `--build-only` builds if needed and stops (the tests use it).
 * Plain JavaScript on purpose: it must run before anything is compiled.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const entry = join(root, "dist", "cli", "main.js");
const SOURCE_DIRS = ["functions", "shared", "sim", "cli"];
const BUILD_CONFIGS = ["tsconfig.json", "tsconfig.build.json"];

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

/** `npm run build`, run directly so it works however npm was invoked; false when it failed. */
function build() {
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  if (!existsSync(tsc)) {
    console.error(
      "certsched: TypeScript (a devDependency) is not installed; run `npm install` (with dev dependencies) first.",
    );
    return false;
  }
  console.error("certsched: building (tsc -p tsconfig.build.json)...");
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
  return true;
}

/**
 * CERTSCHED_BASE_URL as the CLI will see it: the environment first, then the "Values" of
 * local.settings.json in the working directory (one file serves `func start` and the CLI).
 */
function configuredBaseUrl() {
  const fromEnv = (process.env.CERTSCHED_BASE_URL ?? "").trim();
  if (fromEnv !== "") return fromEnv;
  try {
    const file = JSON.parse(readFileSync(join(process.cwd(), "local.settings.json"), "utf8"));
    const value = file?.Values?.CERTSCHED_BASE_URL;
    return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
  } catch {
    // No file, or not JSON: the CLI itself reports a broken file when it reads it.
    return undefined;
  }
}

function main() {
  const args = process.argv.slice(2);
  const buildOnly = args.includes("--build-only");
  if (needsBuild() && !build()) return 1;
  if (buildOnly) return 0;
  const baseUrl = configuredBaseUrl();
  const real = baseUrl !== undefined;
  const sweep = real ? ["sweep", ...args] : ["sweep", "--sandbox", ...args];
  if (real) console.error(`certsched: sweeping ${baseUrl} (CERTSCHED_BASE_URL is set)`);
  const result = spawnSync(process.execPath, [entry, ...sweep], { stdio: "inherit" });
  if (result.error) {
    console.error(`certsched: could not run the CLI: ${result.error.message}`);
    return 1;
  }
  return result.status ?? 1;
}

process.exitCode = main();
