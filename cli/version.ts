import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * certsched's version from its package.json: two levels up from dist/cli/, one from cli/ when
 * run from the sources, so it looks upward for the package named certsched.
 */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level < 4; level++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === "certsched" && typeof pkg.version === "string") return pkg.version;
    } catch {
      // No package.json at this level (or not ours): look one level up.
    }
    dir = dirname(dir);
  }
  return "unknown";
}
