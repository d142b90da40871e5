import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ignore from "ignore";
import { afterAll, describe, expect, it } from "vitest";

// What `azd deploy` uploads: the project minus what .funcignore excludes (gitignore semantics;
// azd reads it with a gitignore library). The remote build (Oryx) then runs build.env's
// CUSTOM_BUILD_COMMAND on that package. See docs/deploy.md "What is uploaded".

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const funcignoreText = readFileSync(join(repoRoot, ".funcignore"), "utf8");
const packageJson = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  main: string;
};

/** What `npm run build` writes and `npm ci` installs, which git does not list. */
const BUILD_OUTPUTS = [
  "dist/bundle/index.js",
  "dist/bundle/index.js.map",
  "dist/bundle/package.json",
  "dist/bundle/chunks/tableLedger-ABCD1234.js",
  "dist/bundle/chunks/tableLedger-ABCD1234.js.map",
  "dist/cli/main.js",
  "dist/bin/certsched.js",
  "dist/bin/chunks/due-ABCD1234.js",
  "dist/functions/runRenewals.js",
  "dist/shared/app/config/settings.js",
  "dist/sim/main.js",
  "node_modules/@azure/identity/package.json",
  "node_modules/.bin/tsc",
  "node_modules/.package-lock.json",
  "coverage/index.html",
  "local.settings.json",
  ".azure/certsched-prod/.env",
  ".vscode/settings.json",
  "__azurite_db_table__.json",
];

/** Every file in the working tree git knows of (tracked or not ignored), plus the build outputs. */
function projectTree(): string[] {
  const listed = execFileSync(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    {
      cwd: repoRoot,
      encoding: "utf8",
    },
  )
    .split("\0")
    .filter((path) => path !== "");
  return [...new Set([...listed, ...BUILD_OUTPUTS])].sort();
}

/** The files of `tree` a .funcignore with this text lets into the package. */
function packageOf(funcignore: string, tree: readonly string[]): string[] {
  const rules = ignore().add(funcignore);
  return tree.filter((path) => !rules.ignores(path));
}

/** The exact set a deployment needs: the bundle and what installs its external dependencies. */
function isRequired(path: string): boolean {
  return (
    path.startsWith("dist/bundle/") ||
    ["host.json", "package.json", "package-lock.json", "build.env"].includes(path)
  );
}

/** What is wrong with a package: required files left out, anything else let in. */
function packageProblems(shipped: readonly string[], tree: readonly string[]) {
  return {
    missing: tree.filter((path) => isRequired(path) && !shipped.includes(path)),
    unwanted: shipped.filter((path) => !isRequired(path)),
  };
}

const tree = projectTree();
const shipped = packageOf(funcignoreText, tree);

describe(".funcignore: what azd deploy uploads", () => {
  it("sees a realistic tree (git's files plus the build outputs)", () => {
    // Guards the enumeration: an empty tree would make every check below pass.
    expect(tree.length).toBeGreaterThan(150);
    expect(tree).toEqual(
      expect.arrayContaining([
        "functions/runRenewals.ts",
        "shared/app/config/settings.ts",
        "host.json",
      ]),
    );
  });

  it("uploads the bundle, host.json, package.json, package-lock.json and build.env", () => {
    expect(shipped).toEqual(
      expect.arrayContaining([
        "dist/bundle/index.js",
        "dist/bundle/index.js.map",
        "dist/bundle/package.json",
        "dist/bundle/chunks/tableLedger-ABCD1234.js",
        "host.json",
        "package.json",
        "package-lock.json",
        "build.env",
      ]),
    );
  });

  it("uploads the file package.json names as main", () => {
    expect(packageJson.main).toBe("dist/bundle/index.js");
    expect(shipped).toContain(packageJson.main);
  });

  it("uploads nothing else: no dependencies, tests, docs, sources or local settings", () => {
    expect(packageProblems(shipped, tree)).toEqual({ missing: [], unwanted: [] });
    const out = (prefix: string) => tree.filter((p) => p.startsWith(prefix) && shipped.includes(p));
    for (const prefix of ["node_modules/", "test/", "bench/", "docs/", ".ci/", "infra/"]) {
      expect(out(prefix), prefix).toEqual([]);
    }
    expect(shipped).not.toContain("local.settings.json");
    expect(shipped.filter((p) => p.endsWith(".ts"))).toEqual([]);
  });

  it("is the package of a remote build (azure.yaml), which installs what node_modules held", () => {
    const azureYaml = readFileSync(join(repoRoot, "azure.yaml"), "utf8");
    expect(azureYaml).toMatch(/^\s+remoteBuild:\s*true\s*$/m);
  });

  it("excludes node_modules the way azd checks it before a remote build", () => {
    // azd >= 1.23.12 asks its gitignore matcher about the directory "node_modules" and
    // refuses `remoteBuild: true` unless it is excluded.
    expect(ignore().add(funcignoreText).ignores("node_modules/")).toBe(true);
  });
});

describe("build.env: the remote build installs, it does not compile", () => {
  const settings = new Map(
    readFileSync(join(repoRoot, "build.env"), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.startsWith("#"))
      // INI, as Oryx reads it: the key ends at the first "=".
      .map((line) => [
        line.slice(0, line.indexOf("=")).trim(),
        line.slice(line.indexOf("=") + 1).trim(),
      ]),
  );
  const command = settings.get("CUSTOM_BUILD_COMMAND") ?? "";
  const work = mkdtempSync(join(tmpdir(), "certsched-buildenv-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** Runs the command in a package directory, with an `npm` on PATH that records its arguments. */
  function runBuild(withBundle: boolean) {
    const dir = mkdtempSync(join(work, "pkg-"));
    const bin = join(dir, ".fakebin");
    mkdirSync(bin);
    writeFileSync(join(bin, "npm"), `#!/bin/sh\necho "$@" >> "${join(dir, "npm-calls")}"\n`);
    chmodSync(join(bin, "npm"), 0o755);
    if (withBundle) {
      mkdirSync(join(dir, "dist/bundle"), { recursive: true });
      writeFileSync(join(dir, "dist/bundle/index.js"), "");
    }
    const result = spawnSync("bash", ["-e", "-c", command], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` },
    });
    let npmCalls: string[] = [];
    try {
      npmCalls = readFileSync(join(dir, "npm-calls"), "utf8").trim().split("\n");
    } catch {
      npmCalls = [];
    }
    return { status: result.status, stderr: result.stderr, npmCalls };
  }

  it("replaces Oryx's default build with one command, and nothing else", () => {
    // RUN_BUILD_COMMAND would keep Oryx's `npm install` (all devDependencies) in front of it.
    expect([...settings.keys()]).toEqual(["CUSTOM_BUILD_COMMAND"]);
    // Outside its quoted message, the command names no compiler and no build script.
    expect(command.replace(/"[^"]*"/g, '""')).not.toMatch(/npm (run )?build\b|\btsc\b|esbuild/);
    expect(command).toContain(packageJson.main);
  });

  it("installs the production dependencies from the lock file when the bundle is there", () => {
    expect(runBuild(true)).toEqual({ status: 0, stderr: "", npmCalls: ["ci --omit dev"] });
  });

  it("stops before installing, naming the missing bundle, when it is not", () => {
    const result = runBuild(false);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("dist/bundle/index.js is missing: run npm run build");
    expect(result.npmCalls).toEqual([]);
  });
});

describe("the checks themselves", () => {
  // Each check above must fail when .funcignore is broken the likely ways.
  const without = (line: string) =>
    funcignoreText
      .split("\n")
      .filter((l) => l.trim() !== line)
      .join("\n");

  it("catches node_modules being uploaded when its line is removed", () => {
    const broken = without("node_modules/");
    expect(ignore().add(broken).ignores("node_modules/")).toBe(false);
    expect(packageProblems(packageOf(broken, tree), tree).unwanted).toEqual(
      expect.arrayContaining(["node_modules/@azure/identity/package.json"]),
    );
  });

  it("catches the bundle being left out", () => {
    for (const broken of [
      without("!/dist/bundle/"),
      `${funcignoreText}\ndist/\n`,
      `${funcignoreText}\n*.js\n`,
    ]) {
      expect(packageProblems(packageOf(broken, tree), tree).missing).toEqual(
        expect.arrayContaining(["dist/bundle/index.js"]),
      );
    }
  });

  it("catches sources and tests being uploaded", () => {
    const problems = packageProblems(packageOf(without("/shared/"), tree), tree);
    expect(problems.unwanted).toContain("shared/app/config/settings.ts");
    const tests = packageProblems(packageOf(without("/test/"), tree), tree);
    expect(tests.unwanted.some((p) => p.startsWith("test/"))).toBe(true);
  });
});
