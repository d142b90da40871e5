import type { Command } from "./command.js";
import { COMMAND_LIST, type CommandEntry } from "./commandList.js";

/**
 * Every command: its name and one-line summary in cli/commandList.ts, its code loaded only when
 * it runs, so `certsched --version`, `--help` and a mistyped command start as fast as node
 * itself (the command modules pull in the HTTP client, zod and the Azure SDK).
 */
const LOADERS: Readonly<Record<string, () => Promise<Command>>> = {
  sweep: async () => (await import("./commands/sweep.js")).sweepCommand,
  due: async () => (await import("./commands/due.js")).dueCommand,
  verify: async () => (await import("./commands/verify.js")).verifyCommand,
  preflight: async () => (await import("./commands/preflight.js")).preflightCommand,
  create: async () => (await import("./commands/create.js")).createCommand,
  renew: async () => (await import("./commands/renew.js")).renewCommand,
  get: async () => (await import("./commands/get.js")).getCommand,
  status: async () => (await import("./commands/status.js")).statusCommand,
  history: async () => (await import("./commands/history.js")).historyCommand,
  runs: async () => (await import("./commands/runs.js")).runsCommand,
  test: async () => (await import("./commands/test.js")).testCommand,
  ct: async () => (await import("./commands/ct.js")).ctCommand,
  events: async () => (await import("./commands/events.js")).eventsCommand,
  estate: async () => (await import("./commands/estate.js")).estateCommand,
  windows: async () => (await import("./commands/windows.js")).windowsCommand,
  accounts: async () => (await import("./commands/accounts.js")).accountsCommand,
  sandbox: async () => (await import("./commands/sandbox.js")).sandboxCommand,
  completion: async () => (await import("./commands/completion.js")).completionCommandFor(COMMANDS),
};

export const COMMANDS: readonly CommandEntry[] = COMMAND_LIST.map((entry) => {
  const load = LOADERS[entry.name];
  if (!load) throw new Error(`certsched: no loader for the command ${entry.name}`);
  return { ...entry, load };
});
