import type { Command } from "./command.js";

/**
 * Every command's name and one-line summary, in `certsched --help` order. Nothing here imports
 * a command: `cli/registry.ts` adds the lazy loaders, and the completion command is handed the
 * registry's entries (no import cycle between the two).
 */
export interface CommandSummary {
  readonly name: string;
  /** One line for `certsched --help`. */
  readonly summary: string;
}

/** A command's summary and the loader of its code (cli/registry.ts builds them). */
export interface CommandEntry extends CommandSummary {
  readonly load: () => Promise<Command>;
}

export const COMMAND_LIST: readonly CommandSummary[] = [
  { name: "sweep", summary: "Run the renewal sweep once (the timer's job)" },
  { name: "due", summary: "List the certificates due for renewal, with days left" },
  { name: "verify", summary: "Check what each domain serves, as a browser would (--domain)" },
  { name: "preflight", summary: "Check days ahead what would make a renewal fail, and why" },
  { name: "create", summary: "Schedule the creation of a certificate from a request file" },
  { name: "renew", summary: "Schedule renewals by name (several, or --all-due), recorded" },
  { name: "get", summary: "Show one certificate by name, as the service holds it" },
  { name: "status", summary: "Show each certificate's status, expiry and last renewal request" },
  { name: "history", summary: "Show what happened to certificates, newest first (--since)" },
  { name: "runs", summary: "Show the latest sweeps and why a failed one failed" },
  { name: "test", summary: "Check connectivity and credentials (--wait: until it answers)" },
  { name: "ct", summary: "List Certificate Transparency issuances of watched names (ct ack)" },
  { name: "events", summary: "Replay Key Vault events, a dead-lettered one say (events replay)" },
  { name: "estate", summary: "Find every certificate the accounts can see; unmanaged first" },
  { name: "windows", summary: "Show the renewal windows and freezes ahead (--days), offline" },
  { name: "accounts", summary: "List the accounts (--account NAME on any command picks one)" },
  { name: "sandbox", summary: "Start the simulator with sample certificates; print its settings" },
  { name: "completion", summary: "Print a shell completion script: certsched completion bash|zsh" },
];
