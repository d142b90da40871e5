import { existsSync, readdirSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileCacheFolder } from "../../cli/compileCache.js";
import { tempDir } from "../support/cli.js";
import { ensureBuilt, runCli } from "../support/cliBuild.js";

/**
 * The CLI's compile cache: where it goes, that the built CLI fills it on a Node that has one
 * (22.1+) and runs the same without it (Node 20, turned off, or a folder it cannot write).
 */

const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
const NODE_HAS_CACHE = major > 22 || (major === 22 && minor >= 1);

let dir: { path: string; remove(): Promise<void> };
beforeAll(async () => {
  await ensureBuilt();
  dir = await tempDir();
}, 120_000);
afterAll(async () => {
  await dir?.remove();
});

/** Files written under `folder`, at any depth. */
function filesUnder(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

describe("the compile cache's folder", () => {
  it("NODE_COMPILE_CACHE first, then $XDG_CACHE_HOME/certsched/compile, then ~/.cache", () => {
    const home = () => "/home/op";
    expect(compileCacheFolder({ NODE_COMPILE_CACHE: "/c", XDG_CACHE_HOME: "/x" }, home)).toBe("/c");
    expect(compileCacheFolder({ XDG_CACHE_HOME: "/x" }, home)).toBe("/x/certsched/compile");
    expect(compileCacheFolder({ XDG_CACHE_HOME: "" }, home)).toBe(
      "/home/op/.cache/certsched/compile",
    );
    expect(compileCacheFolder({}, home)).toBe("/home/op/.cache/certsched/compile");
  });
});

describe(`the built CLI on Node ${process.version}`, () => {
  it(
    NODE_HAS_CACHE
      ? "fills the cache folder, and answers the same from it"
      : "runs without a cache (this Node has none)",
    async () => {
      const cacheHome = join(dir.path, "xdg");
      const first = await runCli(["--version"], { env: { XDG_CACHE_HOME: cacheHome } });
      const second = await runCli(["--version"], { env: { XDG_CACHE_HOME: cacheHome } });
      expect(first).toMatchObject({ code: 0, stderr: "" });
      expect(second).toEqual(first);
      expect(first.stdout).toMatch(/^certsched \d+\.\d+\.\d+\n$/);
      const written = filesUnder(join(cacheHome, "certsched", "compile"));
      expect(written.length > 0).toBe(NODE_HAS_CACHE);
    },
  );

  it("NODE_DISABLE_COMPILE_CACHE=1 writes nothing", async () => {
    const cacheHome = join(dir.path, "off");
    const result = await runCli(["--version"], {
      env: { XDG_CACHE_HOME: cacheHome, NODE_DISABLE_COMPILE_CACHE: "1" },
    });
    expect(result.code).toBe(0);
    expect(filesUnder(cacheHome)).toEqual([]);
  });

  it("NODE_COMPILE_CACHE is where it goes when set", async () => {
    const cacheHome = join(dir.path, "xdg-unused");
    const chosen = join(dir.path, "chosen");
    const result = await runCli(["--version"], {
      env: { XDG_CACHE_HOME: cacheHome, NODE_COMPILE_CACHE: chosen },
    });
    expect(result.code).toBe(0);
    expect(filesUnder(cacheHome)).toEqual([]);
    expect(filesUnder(chosen).length > 0).toBe(NODE_HAS_CACHE);
  });

  it("a folder it cannot write: the command runs as without, and says nothing of it", async () => {
    // A file where the folder should be: no folder can be made under it.
    const notAFolder = join(dir.path, "a-file");
    await writeFile(notAFolder, "");
    const result = await runCli(["--help"], { env: { XDG_CACHE_HOME: notAFolder } });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("certsched");
  });
});
