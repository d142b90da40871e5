import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * What the Functions host reads when it indexes the app: the function modules are built as the
 * deployment builds them (esbuild, one bundle per module), then loaded in a plain Node process
 * where `@azure/functions-core`, the module the host's worker provides, is a recorder. Each
 * `app.*` call reaches it as `registerFunction(metadata, callback)`: the metadata (name and
 * bindings, each with its type and direction) is exactly what the host indexes. No vitest mock:
 * the real `@azure/functions` package turns the options into bindings.
 */

const ROOT = join(import.meta.dirname, "..", "..");

/** Hooks require("@azure/functions-core") before anything loads; prints what was registered. */
const PRELOAD = `
const Module = require("node:module");
const registered = [];
let programmingModel;
const core = {
  setProgrammingModel: (model) => { programmingModel = { name: model.name, version: model.version }; },
  getProgrammingModel: () => programmingModel,
  registerFunction: (metadata, callback) => {
    registered.push({ metadata, callback: typeof callback });
    return { dispose() {} };
  },
  registerHook: () => ({ dispose() {} }),
};
const load = Module._load;
Module._load = function (request, ...rest) {
  if (request === "@azure/functions-core") return core;
  return load.call(this, request, ...rest);
};
globalThis.__indexed = () => ({ programmingModel, registered });
`;

const RUNNER = `
const files = JSON.parse(process.argv[2]);
for (const file of files) await import(file);
process.stdout.write(JSON.stringify(globalThis.__indexed()));
`;

interface Binding {
  type: string;
  direction: string;
  [key: string]: unknown;
}
interface Indexed {
  programmingModel?: { name: string; version: string };
  registered: { metadata: { name: string; bindings: Record<string, Binding> }; callback: string }[];
}

let dir: string;
let indexed: Indexed;
let moduleCount: number;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "certsched-host-indexing-"));
  // Packages stay external, resolved from the project's node_modules as on the host.
  await symlink(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  const modules = (await readdir(join(ROOT, "functions"))).filter((f) => f.endsWith(".ts"));
  moduleCount = modules.length;
  await build({
    absWorkingDir: ROOT,
    entryPoints: modules.map((f) => join("functions", f)),
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    packages: "external",
    outdir: join(dir, "functions"),
    logLevel: "silent",
  });
  await writeFile(join(dir, "preload.cjs"), PRELOAD);
  await writeFile(join(dir, "runner.mjs"), RUNNER);
  const files = modules.map((f) => join(dir, "functions", f.replace(/\.ts$/, ".js")));
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--require", join(dir, "preload.cjs"), join(dir, "runner.mjs"), JSON.stringify(files)],
    { cwd: dir, env: { PATH: process.env.PATH ?? "" }, timeout: 30_000 },
  );
  indexed = JSON.parse(stdout) as Indexed;
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A function's bindings as the host reads them, without their generated names. */
function bindings(name: string): Binding[] {
  const found = indexed.registered.find((r) => r.metadata.name === name);
  return Object.values(found?.metadata.bindings ?? {});
}

const TIMERS: Record<string, string> = {
  renewDueCertificates: "%CERTSCHED_RENEWAL_SCHEDULE%",
  verifyCertificates: "%CERTSCHED_VERIFY_SCHEDULE%",
  preflightCertificates: "%CERTSCHED_PREFLIGHT_SCHEDULE%",
  watchTransparency: "%CERTSCHED_CT_SCHEDULE%",
  discoverEstate: "%CERTSCHED_ESTATE_SCHEDULE%",
  cleanupHistory: "0 30 4 * * *",
};
const QUEUES: Record<string, string> = {
  runQueuedRenewals: "certsched-runs",
  poisonedRenewals: "certsched-runs-poison",
  recheckVaultConsumers: "certsched-vault-rechecks",
};

describe("what the Functions host indexes", () => {
  it("the @azure/functions programming model, and one function per module, each with a callback", () => {
    expect(indexed.programmingModel?.name).toBe("@azure/functions");
    expect(indexed.registered).toHaveLength(moduleCount);
    expect(indexed.registered).toHaveLength(26);
    expect(new Set(indexed.registered.map((r) => r.metadata.name)).size).toBe(26);
    expect(indexed.registered.every((r) => r.callback === "function")).toBe(true);
  });

  it("keyVaultEvents: one binding, an eventGridTrigger in", () => {
    expect(bindings("keyVaultEvents")).toEqual([
      expect.objectContaining({
        type: "eventGridTrigger",
        direction: "in",
        name: expect.stringMatching(/^eventGridTrigger/),
      }),
    ]);
    // The binding's key is its name (the host passes the event in under it).
    const found = indexed.registered.find((r) => r.metadata.name === "keyVaultEvents");
    const [key, binding] = Object.entries(found?.metadata.bindings ?? {})[0] ?? [];
    expect(binding?.name).toBe(key);
  });

  it.each(Object.entries(TIMERS))("%s: a timerTrigger in on %s", (name, schedule) => {
    expect(bindings(name)).toEqual([
      expect.objectContaining({ type: "timerTrigger", direction: "in", schedule }),
    ]);
    expect(bindings(name)[0]?.runOnStartup).not.toBe(true);
  });

  it.each(Object.entries(QUEUES))(
    "%s: a queueTrigger in on %s, the host's storage",
    (name, queue) => {
      expect(bindings(name)).toEqual([
        expect.objectContaining({
          type: "queueTrigger",
          direction: "in",
          queueName: queue,
          connection: "AzureWebJobsStorage",
        }),
      ]);
    },
  );

  it("every other function: an httpTrigger in (function key) and an http out", () => {
    const others = indexed.registered
      .map((r) => r.metadata.name)
      .filter((n) => n !== "keyVaultEvents" && !(n in TIMERS) && !(n in QUEUES));
    expect(others).toHaveLength(16);
    for (const name of others) {
      const types = bindings(name).map((b) => `${b.type} ${b.direction}`);
      expect(types.sort(), name).toEqual(["http out", "httpTrigger in"]);
      const trigger = bindings(name).find((b) => b.type === "httpTrigger");
      expect(trigger?.authLevel, name).toBe("function");
    }
  });
});
