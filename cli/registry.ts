import type { Command } from "./command.js";

/**
 * Every command: its name and one-line summary here, its code loaded only when it runs, so
 * `certsched --version`, `--help` and a mistyped command start as fast as node itself (the
 * command modules pull in the HTTP client, zod and the Azure SDK).
 */
export interface CommandEntry {
  readonly name: string;
  /** One line for `certsched --help`. */
  readonly summary: string;
  readonly load: () => Promise<Command>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "sweep",
    summary: "Run the renewal sweep once (the timer's job)",
    load: async () => (await import("./commands/sweep.js")).sweepCommand,
  },
  {
    name: "due",
    summary: "List the certificates due for renewal, with days left",
    load: async () => (await import("./commands/due.js")).dueCommand,
  },
  {
    name: "verify",
    summary: "Check what each domain serves, as a browser would (--domain)",
    load: async () => (await import("./commands/verify.js")).verifyCommand,
  },
  {
    name: "create",
    summary: "Schedule the creation of a certificate from a request file",
    load: async () => (await import("./commands/create.js")).createCommand,
  },
  {
    name: "renew",
    summary: "Schedule renewals by name (several, or --all-due), recorded",
    load: async () => (await import("./commands/renew.js")).renewCommand,
  },
  {
    name: "get",
    summary: "Show one certificate by name, as the service holds it",
    load: async () => (await import("./commands/get.js")).getCommand,
  },
  {
    name: "status",
    summary: "Show each certificate's status, expiry and last renewal request",
    load: async () => (await import("./commands/status.js")).statusCommand,
  },
  {
    name: "history",
    summary: "Show what happened to certificates, newest first (--since)",
    load: async () => (await import("./commands/history.js")).historyCommand,
  },
  {
    name: "runs",
    summary: "Show the latest sweeps and why a failed one failed",
    load: async () => (await import("./commands/runs.js")).runsCommand,
  },
  {
    name: "test",
    summary: "Check connectivity and credentials (--wait: until it answers)",
    load: async () => (await import("./commands/test.js")).testCommand,
  },
  {
    name: "sandbox",
    summary: "Start the simulator with sample certificates; print its settings",
    load: async () => (await import("./commands/sandbox.js")).sandboxCommand,
  },
  {
    name: "completion",
    summary: "Print a shell completion script: certsched completion bash|zsh",
    load: async () => (await import("./commands/completion.js")).completionCommand,
  },
];
