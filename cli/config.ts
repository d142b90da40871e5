import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ACCOUNTS_FILE_SETTING, ACCOUNTS_SETTING } from "../shared/app/config/accounts.js";
import { KNOWN_SETTINGS } from "../shared/app/config/schema.js";
import { loadSettings } from "../shared/app/config/settings.js";
import type { Env, Settings } from "../shared/core/settings.js";
import { ConfigError, ensureError, type Problem } from "../shared/lib/errors.js";
import type { Io } from "./io.js";
import { parseJsonFile } from "./jsonLocation.js";
import { checkSettingNames } from "./settingNames.js";

/** The file `func start` reads; the CLI reads its "Values" too, so one file serves both. */
export const LOCAL_SETTINGS_FILE = "local.settings.json";

export interface CliEnv {
  /** The merged settings: the environment wins over the file. */
  readonly env: Env;
  /** Path of the local.settings.json that was read, or undefined when there is none. */
  readonly file: string | undefined;
}

function fileProblem(message: string): ConfigError {
  return new ConfigError([{ name: LOCAL_SETTINGS_FILE, message }]);
}

/** The "Values" of local.settings.json as strings; undefined when the file does not exist. */
async function readLocalValues(path: string): Promise<Record<string, string> | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw fileProblem(`cannot be read (${ensureError(error).message})`);
  }
  const parsed = parseJsonFile(text);
  if (!parsed.ok) throw fileProblem(parsed.problem);
  const document = parsed.value;
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    throw fileProblem('must be a JSON object with a "Values" object inside');
  }
  const values = (document as { Values?: unknown }).Values;
  // Settings written at the top level would be silently ignored; `func start` ignores them too.
  if (values === undefined) {
    throw fileProblem(
      'has no "Values" object: settings go inside it, as in local.settings.sample.json',
    );
  }
  if (typeof values !== "object" || values === null || Array.isArray(values)) {
    throw fileProblem('"Values" must be an object of setting names to strings');
  }
  const out: Record<string, string> = {};
  const problems: Problem[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === "string") out[name] = value;
    else if (typeof value === "number" || typeof value === "boolean") out[name] = String(value);
    else if (value !== null) {
      problems.push({ name: `${LOCAL_SETTINGS_FILE} Values.${name}`, message: "must be a string" });
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out;
}

/**
 * The settings the CLI runs with: each from the environment if set there (and not blank),
 * else from the "Values" of local.settings.json in the working directory. Every unknown name
 * that looks like one of ours is a warning on stderr naming the closest known one; a misspelt
 * dry-run switch is a ConfigError.
 */
export async function cliEnv(io: Pick<Io, "env" | "cwd" | "stderr">): Promise<CliEnv> {
  const path = join(io.cwd, LOCAL_SETTINGS_FILE);
  const fromFile = await readLocalValues(path);
  const env: Record<string, string | undefined> = { ...fromFile };
  for (const [name, value] of Object.entries(io.env)) {
    if (value !== undefined && value.trim() !== "") env[name] = value;
  }
  checkSettingNames(io, [
    { names: Object.keys(io.env), source: "the environment" },
    { names: Object.keys(fromFile ?? {}), source: LOCAL_SETTINGS_FILE },
  ]);
  return { env, file: fromFile === undefined ? undefined : path };
}

/** What a command needs beyond what every command needs (CERTSCHED_BASE_URL, credentials). */
export type Need = "subscription" | "subscriptionId" | "apiKey";

function needProblems(env: Env, needs: readonly Need[]): Problem[] {
  const has = (name: string) => (env[name] ?? "").trim() !== "";
  // Declared accounts each carry their own subscription and key (checked by their schema); the
  // single-account settings are then forbidden, so never asked for.
  if (has(ACCOUNTS_SETTING) || has(ACCOUNTS_FILE_SETTING)) return [];
  const problems: Problem[] = [];
  if (needs.includes("subscription") && !has("CERTSCHED_SUBSCRIPTION")) {
    problems.push({
      name: "CERTSCHED_SUBSCRIPTION",
      message: "is required for create and renew (v3)",
    });
  }
  if (
    needs.includes("subscriptionId") &&
    !has("CERTSCHED_SUBSCRIPTION_ID") &&
    !has("CERTSCHED_SUBSCRIPTION")
  ) {
    problems.push({
      name: "CERTSCHED_SUBSCRIPTION_ID",
      message: "is required for due, sweep and test (or set CERTSCHED_SUBSCRIPTION)",
    });
  }
  if (needs.includes("apiKey") && !has("CERTSCHED_API_KEY") && !has("CERTSCHED_KEY_VAULT_URL")) {
    problems.push({
      name: "CERTSCHED_API_KEY",
      message:
        "is required for create and renew unless CERTSCHED_KEY_VAULT_URL names the vault that holds it",
    });
  }
  return problems;
}

/**
 * cliEnv, parsed: one ConfigError names every missing or invalid setting the command needs,
 * in the order of the settings table, so an operator fixes them in one round.
 */
export async function cliSettings(
  io: Pick<Io, "env" | "cwd" | "stderr">,
  needs: readonly Need[] = [],
): Promise<Settings> {
  const { env } = await cliEnv(io);
  let problems: Problem[] = [];
  let settings: Settings | undefined;
  try {
    settings = loadSettings(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems = [...error.problems];
  }
  const named = new Set(problems.map((p) => p.name));
  problems.push(...needProblems(env, needs).filter((p) => !named.has(p.name)));
  if (problems.length > 0 || settings === undefined) {
    const order = (p: Problem) => {
      const i = KNOWN_SETTINGS.indexOf(p.name);
      return i === -1 ? KNOWN_SETTINGS.length : i;
    };
    throw new ConfigError([...problems].sort((a, b) => order(a) - order(b)));
  }
  return settings;
}

/** Where settings come from, for the hint under a configuration error. */
export function settingsHint(cwd: string): string {
  return [
    `certsched reads CERTSCHED_* settings from the environment, then from the "Values" of ${join(cwd, LOCAL_SETTINGS_FILE)}.`,
    "To try certsched without an account: certsched sweep --sandbox",
  ].join("\n");
}
