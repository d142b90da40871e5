#!/usr/bin/env node
/**
 * `npm run test:props`: every fast-check property of every suite, with FC_NUM_RUNS (default
 * 10,000) runs each. Not part of CI (it takes minutes); run it before committing a property.
 * A failing property prints its seed and counterexample; replay it with FC_SEED and FC_PATH
 * (README "Development").
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const PROPERTY = /\bfc\.assert\(|\btest\.prop\(|\bit\.prop\(/;

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((item) => {
    const path = join(dir, item.name);
    if (item.isDirectory()) return testFiles(path);
    return item.name.endsWith(".test.ts") ? [path] : [];
  });
}

const files = testFiles(join(root, "test"))
  .filter((path) => PROPERTY.test(readFileSync(path, "utf8")))
  .map((path) => relative(root, path));
const runs = process.env.FC_NUM_RUNS ?? "10000";
console.error(`certsched: ${files.length} suites with properties, ${runs} runs per property`);
const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
const result = spawnSync(
  process.execPath,
  [vitest, "run", "--testTimeout=1800000", ...files, ...process.argv.slice(2)],
  { cwd: root, stdio: "inherit", env: { ...process.env, FC_NUM_RUNS: runs } },
);
process.exitCode = result.status ?? 1;
