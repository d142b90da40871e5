import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ConfigError, ensureError } from "../shared/errors.js";
import { jsonSyntaxProblem } from "../shared/jsonSyntax.js";
import { type Env, loadSettings, type Settings } from "../shared/settings.js";
import type { Io } from "./io.js";

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

/** The "Values" of local.settings.json as strings; {} when the file does not exist. */
async function readLocalValues(path: string): Promise<Record<string, string> | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw fileProblem(`cannot be read (${ensureError(error).message})`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw fileProblem(jsonSyntaxProblem(error));
  }
  const values = (document as { Values?: unknown } | null)?.Values;
  if (values === undefined) return {};
  if (typeof values !== "object" || values === null || Array.isArray(values)) {
    throw fileProblem('"Values" must be an object of setting names to strings');
  }
  const out: Record<string, string> = {};
  const problems: { name: string; message: string }[] = [];
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
 * else from the "Values" of local.settings.json in the working directory.
 */
export async function cliEnv(io: Pick<Io, "env" | "cwd">): Promise<CliEnv> {
  const path = join(io.cwd, LOCAL_SETTINGS_FILE);
  const fromFile = await readLocalValues(path);
  const env: Record<string, string | undefined> = { ...fromFile };
  for (const [name, value] of Object.entries(io.env)) {
    if (value !== undefined && value.trim() !== "") env[name] = value;
  }
  return { env, file: fromFile === undefined ? undefined : path };
}

/** cliEnv, parsed: a ConfigError names every missing or invalid setting. */
export async function cliSettings(io: Pick<Io, "env" | "cwd">): Promise<Settings> {
  return loadSettings((await cliEnv(io)).env);
}

/** Where settings come from, for the hint under a configuration error. */
export function settingsHint(cwd: string): string {
  return [
    `certsched reads CERTSCHED_* settings from the environment, then from the "Values" of ${join(cwd, LOCAL_SETTINGS_FILE)}.`,
    "To try certsched without an account: certsched sweep --sandbox",
  ].join("\n");
}
