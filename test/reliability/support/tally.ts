import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Where the suites leave their figures; CERTSCHED_RELIABILITY_DIR overrides it. */
export function tallyDir(): string {
  return process.env.CERTSCHED_RELIABILITY_DIR ?? join(tmpdir(), "certsched-reliability");
}

/**
 * Leaves a suite's figures where docs/reliability.md says: one JSON line in
 * <tallyDir>/<suite>.json, and the same line on stdout prefixed "certsched-reliability", so the
 * README's Reliability section can be filled from an actual run. (Biome forbids console in
 * tests; stdout is what a person running the suite reads.)
 */
export function reportTally(suite: string, figures: Record<string, unknown>): void {
  const line = JSON.stringify({ suite, ...figures });
  const dir = tallyDir();
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${suite}.json`);
  writeFileSync(file, `${line}\n`);
  process.stdout.write(`certsched-reliability ${line} (${file})\n`);
}
