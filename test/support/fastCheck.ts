import fc from "fast-check";

/**
 * Global fast-check settings from the environment, so every property in every suite can be run
 * harder or replayed without editing it:
 * - FC_NUM_RUNS: runs per property (`npm run test:props` sets 10,000); unset keeps each
 *   property's own default.
 * - FC_SEED (and FC_PATH): replay the counterexample a failing property printed, e.g.
 *   `FC_SEED=-1234 FC_PATH="0:1" npx vitest run test/shared/core/renewal/decide.test.ts -t "stuck"`.
 */
const numRuns = Number(process.env.FC_NUM_RUNS);
const seed = process.env.FC_SEED;
const path = process.env.FC_PATH;

fc.configureGlobal({
  ...(Number.isInteger(numRuns) && numRuns > 0 ? { numRuns } : {}),
  ...(seed !== undefined && seed !== "" ? { seed: Number(seed) } : {}),
  ...(path !== undefined && path !== "" ? { path } : {}),
});

/** A property's own run count, raised to FC_NUM_RUNS when that asks for more. */
export function propertyRuns(own: number): number {
  return Number.isInteger(numRuns) && numRuns > own ? numRuns : own;
}
