import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/*
 * ARM's SDKs are loaded only when preflight runs, so the cold start of the functions that never run
 * it does not grow. The module is bundled as the deployment bundles it (its packages left to
 * node_modules, its dynamic imports as lazy require calls) and loaded in a fresh Node process,
 * which then lists the modules it has loaded: none of @azure/arm-dns or @azure/arm-appservice after
 * the import, both after one lookup of each kind (so the listing does see them when they are
 * there).
 */

const ROOT = path.resolve(import.meta.dirname, "..", "..", "..", "..");
const run = promisify(execFile);

const CHILD = `
const seen = () => [...new Set(Object.keys(require.cache).flatMap((file) => {
  const m = /[\\\\/]@azure[\\\\/](arm-dns|arm-appservice)[\\\\/]/.exec(file);
  return m ? [m[1]] : [];
}))].sort();
const { armLookups } = require(process.env.BUNDLE);
const afterImport = seen();
const credential = { getToken: async () => ({ token: "t", expiresOnTimestamp: Date.now() + 3600e3 }) };
const arm = armLookups({ armUrl: "https://127.0.0.1:1", credential, timeoutMs: 2000 });
(async () => {
  const zone = await arm.dnsZone("s", "rg", "contoso.com");
  const sites = await arm.sites("s");
  console.log(JSON.stringify({ afterImport, afterLookups: seen(), kinds: [zone.kind, sites.kind] }));
})();
`;

let dir: string;
let bundle: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "certsched-arm-cold-"));
  bundle = path.join(dir, "armLookups.cjs");
  await build({
    entryPoints: [path.join(ROOT, "shared/adapters/preflight/armLookups.ts")],
    bundle: true,
    platform: "node",
    format: "cjs",
    packages: "external",
    // import() as require(), so that every module loaded shows in require.cache.
    supported: { "dynamic-import": false },
    outfile: bundle,
    logLevel: "silent",
  });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("loading the ARM adapter", () => {
  it("loads neither ARM SDK until a lookup runs", async () => {
    const { stdout } = await run(process.execPath, ["-e", CHILD], {
      cwd: ROOT,
      env: { ...process.env, BUNDLE: bundle, NODE_PATH: path.join(ROOT, "node_modules") },
    });
    expect(JSON.parse(stdout)).toEqual({
      afterImport: [],
      afterLookups: ["arm-appservice", "arm-dns"],
      kinds: ["unknown", "unknown"],
    });
  });
});
