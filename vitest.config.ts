import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * Two test files at a time at least: vitest's default (one fewer than the CPUs) runs a 2-CPU
 * machine's files one by one, and most of a file's time is spent waiting on sockets and timers
 * (simulators, Azurite, child processes), not on a CPU. Measured on the 2-CPU CI machine:
 * docs/development.md, "CI's time".
 */
const WORKERS = Math.max(2, availableParallelism() - 1);

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/globalSetup.ts"],
    setupFiles: ["test/support/fastCheck.ts", "test/support/quietFunctionsTestMode.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    maxWorkers: WORKERS,
    reporters: ["default", "./test/support/plainSummaryReporter.ts"],
  },
});
