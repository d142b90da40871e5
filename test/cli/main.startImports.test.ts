import { readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, sandboxSettings, startSimulator } from "../../sim/index.js";
import { inDays, tempDir } from "../support/cli.js";
import { CLI, CLI_TSC, ensureBuilt, ROOT, runNode } from "../support/cliBuild.js";

/*
 * Each command loads only what it uses, when it first needs it. The built CLI runs in a child with
 * a preload that records every module it loads (test/support/loadedModules.mjs); a module on a
 * command's deny list fails the test with its path. Not a timing test: what is loaded, not how long
 * it took (the times are in `npm run bench`, "CLI start per command").
 *
 * Each case runs twice: from the tsc output (one file per module: what the recording sees is
 * what was imported) and from the bundle `bin` runs (dist/bin/certsched.js), where a loaded chunk
 * stands for the modules esbuild put in it (dist/bin/inputs.json). A static import that pulls a
 * heavy module into a command's chunk fails the second even when the first passes.
 */

const PRELOAD = join(ROOT, "test", "support", "loadedModules.mjs");

/** What no command may load unless it uses it, each with the words the failure names it by. */
const HEAVY = {
  azure: { pattern: /\/node_modules\/@azure\//, what: "an Azure SDK" },
  openTelemetry: { pattern: /\/node_modules\/@opentelemetry\//, what: "OpenTelemetry" },
  undici: { pattern: /\/node_modules\/undici\//, what: "undici (the HTTP client)" },
  // The pieces certsched uses are enough (shared/lib/http/undiciCore.ts); the index loads fetch,
  // WebSocket, the caches and the mocks too, so it stays denied where undici is used.
  undiciIndex: { pattern: /\/node_modules\/undici\/index\.js/, what: "undici's whole index" },
  zod: { pattern: /\/node_modules\/zod\//, what: "zod (the settings schema)" },
  forge: { pattern: /\/node_modules\/node-forge\//, what: "node-forge (certificate parsing)" },
  // The ASN.1 reader is enough (shared/adapters/probes/forgeAsn1.ts), never every cipher and format.
  forgeIndex: {
    pattern: /\/node_modules\/node-forge\/lib\/index\.js/,
    what: "node-forge's whole index",
  },
  dns: { pattern: /\/node_modules\/dns2\//, what: "dns2 (the simulator's DNS server)" },
  width: { pattern: /\/node_modules\/string-width\//, what: "string-width (terminal wrapping)" },
  tlsProbe: { pattern: /\/dist\/shared\/adapters\/probes\/tlsProbe\.js/, what: "the TLS probe" },
  dashboard: { pattern: /\/dist\/shared\/edge\/dashboard\//, what: "the dashboard renderer" },
  telemetry: { pattern: /\/dist\/shared\/adapters\/telemetry\//, what: "the telemetry adapter" },
  stores: {
    pattern:
      /\/dist\/shared\/adapters\/storage\/(tableLedger|tableHistory|tableInventory|sharedBudget|concurrencyTable|ledgerRows|tableRunStore|memory\/memoryRunStore)\.js|\/dist\/shared\/adapters\/queue\//,
    what: "a table store (storage is not configured)",
  },
  notifier: {
    pattern: /\/dist\/shared\/adapters\/notify\/notifier\.js/,
    what: "the webhook notifier (no webhook is configured)",
  },
  ari: { pattern: /\/dist\/shared\/adapters\/ari\/ariClient\.js/, what: "the ARI client" },
  composition: {
    pattern: /\/dist\/shared\/app\/services\.js/,
    what: "the service composition (tokens, the service client)",
  },
  simulator: { pattern: /\/dist\/sim\//, what: "the simulator (the sandbox)" },
} as const;
type Heavy = keyof typeof HEAVY;

/** Every entry of HEAVY but `used`. */
const allBut = (...used: Heavy[]): Heavy[] =>
  (Object.keys(HEAVY) as Heavy[]).filter((k) => !used.includes(k));

let sim: Simulator;
let dir: { path: string; remove(): Promise<void> };
beforeAll(async () => {
  await ensureBuilt();
  dir = await tempDir();
  sim = await startSimulator({
    certificates: [
      { certificateName: "due-soon", id: 2501, expiryDate: inDays(5), rootDomain: "contoso.com" },
    ],
  });
}, 120_000);
afterAll(async () => {
  await sim?.close();
  await dir?.remove();
});

type Build = "tsc" | "bundle";
const BIN = join(ROOT, "dist", "bin");

/** A loaded file, and for a file of the bundle the modules inside it (as paths under ROOT). */
async function expand(modules: readonly string[]): Promise<string[]> {
  const inputs = JSON.parse(await readFile(join(BIN, "inputs.json"), "utf8")) as Record<
    string,
    string[]
  >;
  return modules.flatMap((m) => {
    const file = m.startsWith("file://") ? fileURLToPath(m) : m;
    const inside = file.startsWith(`${BIN}/`) ? inputs[relative(BIN, file)] : undefined;
    return [m, ...(inside ?? []).map((input) => join(ROOT, input))];
  });
}

/** The modules `certsched <args>` loaded, one path (or node: URL) each. */
async function loadedBy(
  build: Build,
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ modules: string[]; code: number | null; stderr: string }> {
  const record = join(dir.path, `loaded-${build}-${args.join("_").replace(/[^\w-]/g, "")}.txt`);
  const result = await runNode(build === "tsc" ? CLI_TSC : CLI, args, {
    cwd: dir.path,
    env: { ...env, NODE_OPTIONS: `--import=${PRELOAD}`, CERTSCHED_LOADED_MODULES: record },
  });
  const loaded = (await readFile(record, "utf8")).split("\n").filter((line) => line !== "");
  const modules = build === "tsc" ? loaded : await expand(loaded);
  return { modules, code: result.code, stderr: result.stderr };
}

/** "<module> (<what>)" for each loaded module a deny list names. */
function offenders(modules: readonly string[], deny: readonly Heavy[]): string[] {
  return modules.flatMap((m) =>
    deny
      .filter((k) => HEAVY[k].pattern.test(m.replaceAll("\\", "/")))
      .map((k) => `${m} (${HEAVY[k].what})`),
  );
}

interface Case {
  readonly args: readonly string[];
  /** Against the simulator (its settings in the environment), or with no settings at all. */
  readonly service: boolean;
  /** What it may load: everything else in HEAVY is denied. */
  readonly uses: readonly Heavy[];
  /** A module it must load: proves the recording saw the command run (a test that can fail). */
  readonly proof: string;
  readonly exit: number;
}

const CASES: readonly Case[] = [
  { args: ["--version"], service: false, uses: [], proof: "/dist/cli/version.js", exit: 0 },
  {
    args: ["due", "--help"],
    service: false,
    uses: ["zod", "composition"],
    proof: "/dist/cli/commands/due.js",
    exit: 0,
  },
  {
    args: ["status", "--offline", "--help"],
    service: false,
    uses: ["zod", "composition"],
    proof: "/dist/cli/commands/status.js",
    exit: 0,
  },
  {
    args: ["sweep", "--help"],
    service: false,
    uses: ["zod", "composition"],
    proof: "/dist/cli/commands/sweep.js",
    exit: 0,
  },
  {
    args: ["verify", "--help"],
    service: false,
    uses: ["zod", "composition"],
    proof: "/dist/cli/commands/verify.js",
    exit: 0,
  },
  // Against the service, no storage, no vault, no telemetry configured: only what a list needs.
  {
    args: ["due"],
    service: true,
    uses: ["zod", "undici", "composition"],
    proof: "/node_modules/undici/lib/dispatcher/agent.js",
    exit: 0,
  },
  {
    args: ["sweep", "--dry-run"],
    service: true,
    uses: ["zod", "undici", "composition"],
    proof: "/node_modules/undici/lib/dispatcher/agent.js",
    exit: 0,
  },
  // No service, no storage: a domain's certificate read as a browser would, nothing else.
  {
    args: ["verify", "--domain", "unresolvable.invalid", "--timeout", "2s"],
    service: false,
    uses: ["zod", "forge", "tlsProbe"],
    proof: "/dist/shared/adapters/probes/tlsProbe.js",
    exit: 1,
  },
];

describe("what a command loads at start: only what it uses", () => {
  const runs = (["tsc", "bundle"] as const).flatMap((build) =>
    CASES.map((c) => ({ ...c, build, line: c.args.join(" ") })),
  );
  it.each(runs)("certsched $line ($build)", async (c) => {
    const env = c.service ? sandboxSettings(sim) : {};
    const { modules, code, stderr } = await loadedBy(c.build, c.args, env);
    expect(code, stderr).toBe(c.exit);
    expect(
      modules.some((m) => m.replaceAll("\\", "/").includes(c.proof)),
      `the recording misses ${c.proof}: it did not see the command run`,
    ).toBe(true);
    expect(
      offenders(modules, allBut(...c.uses)),
      `certsched ${c.args.join(" ")} loaded modules it does not use`,
    ).toEqual([]);
  });

  it.each(["tsc", "bundle"] as const)(
    "names the offender: verify --domain loads the TLS probe, which --version's list denies (%s)",
    async (build) => {
      const { modules } = await loadedBy(build, ["verify", "--domain", "unresolvable.invalid"], {});
      expect(offenders(modules, allBut())).toEqual(
        expect.arrayContaining([expect.stringMatching(/tlsProbe\.js \(the TLS probe\)$/)]),
      );
    },
  );

  // Today about 25 KiB: the entry and the small chunks of what every command shares (usage,
  // io, the did-you-mean distance). zod's chunk alone is over 250 KiB, undici's over 300 KiB.
  it("the bundle's --version reads at most 64 KiB of it", async () => {
    const { modules } = await loadedBy("bundle", ["--version"], {});
    const files = [
      ...new Set(
        modules
          .map((m) => (m.startsWith("file://") ? fileURLToPath(m) : m))
          .filter((file) => file.startsWith(`${BIN}/`)),
      ),
    ];
    expect(files.map((file) => relative(BIN, file))).toContain("certsched.js");
    const bytes = (await Promise.all(files.map((file) => stat(file)))).reduce(
      (sum, s) => sum + s.size,
      0,
    );
    expect(bytes, files.join("\n")).toBeLessThanOrEqual(64 * 1024);
  });
});
