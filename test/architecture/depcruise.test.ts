import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cruise, type ICruiseOptions, type IViolation } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/sourceTree.js";

/*
 * The floor plan's rules (.dependency-cruiser.cjs) hold over shared/, functions/ and cli/, run
 * through dependency-cruiser's API so `npm test` catches a broken rule even where `npm run
 * lint:deps` is skipped. A failure lists each violation as `rule: from -> to` (a cycle with
 * its path).
 */

const CONFIG = join(REPO_ROOT, ".dependency-cruiser.cjs");

async function rulesAndOptions(baseDir: string): Promise<ICruiseOptions> {
  const options = await extractDepcruiseOptions(CONFIG);
  return { ...options, baseDir };
}

/** One line per violation, as the `err` reporter names them. */
function describeViolation(violation: IViolation): string {
  const cycle = violation.cycle?.map((step) => step.name).join(" -> ");
  return `${violation.rule.name}: ${violation.from} -> ${violation.to}${cycle ? ` (cycle: ${cycle})` : ""}`;
}

async function violationsIn(baseDir: string, paths: string[], tsConfig?: unknown) {
  const result = await cruise(
    paths,
    await rulesAndOptions(baseDir),
    undefined,
    tsConfig ? { tsConfig } : {},
  );
  if (typeof result.output === "string") throw new Error("expected a cruise result, got text");
  return {
    summary: result.output.summary,
    lines: result.output.summary.violations.map(describeViolation),
  };
}

describe("the dependency rules (.dependency-cruiser.cjs)", () => {
  it("hold over shared, functions and cli", { timeout: 120_000 }, async () => {
    const { summary, lines } = await violationsIn(
      REPO_ROOT,
      ["shared", "functions", "cli"],
      extractTSConfig(join(REPO_ROOT, "tsconfig.json")),
    );

    // The cruise saw the code (an empty cruise would hold every rule).
    expect(summary.totalCruised).toBeGreaterThan(100);
    expect(lines).toEqual([]);
  });

  it("are loaded and reported: a lib/ module importing core/ is a violation", async () => {
    const dir = await mkdtemp(join(tmpdir(), "certsched-depcruise-"));
    const write = async (path: string, text: string) => {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    };
    try {
      await write("shared/core/rule.ts", "export const rule = 1;\n");
      await write(
        "shared/lib/leaf.ts",
        'import { rule } from "../core/rule.js";\nexport const leaf = rule;\n',
      );
      const { lines } = await violationsIn(dir, ["shared"]);
      expect(lines).toEqual([
        "lib-imports-nothing-of-ours: shared/lib/leaf.ts -> shared/core/rule.ts",
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
