import { type ParseArgsConfig, parseArgs } from "node:util";
import { closest, distance } from "fastest-levenshtein";
import { UsageError } from "../shared/lib/errors.js";

export type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

export interface ParsedArgs {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

/**
 * node:util parseArgs in strict mode, its errors turned into UsageError. Node's messages
 * already name the offending flag ("Unknown option '--x'"); we keep them and add the command.
 */
export function parseCommandArgs(
  command: string,
  args: readonly string[],
  options: OptionSpec,
  maxPositionals: number,
): ParsedArgs {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...args],
      options,
      strict: true,
      allowPositionals: maxPositionals > 0,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Node suggests "use --" for values that start with a dash; that advice fits our flags poorly.
    const text = message.replace(/\s*To specify an option argument.*$/s, "");
    throw new UsageError(`${text}${flagSuggestion(text, options)}`, command);
  }
  if (parsed.positionals.length > maxPositionals) {
    const extra = parsed.positionals.slice(maxPositionals).join(" ");
    throw new UsageError(`unexpected argument(s): ${extra}`, command);
  }
  return parsed as ParsedArgs;
}

/** `: did you mean --dry-run?` for Node's "Unknown option '--dryrun'", when one is close. */
function flagSuggestion(message: string, options: OptionSpec): string {
  const given = /Unknown option '(-{1,2}[^']*)'/.exec(message)?.[1];
  if (given === undefined) return "";
  const flags = Object.keys(options).map((name) => `--${name}`);
  const guess = closest(given.split("=")[0] ?? given, flags);
  return distance(given, guess) <= 3 ? `: did you mean ${guess}?` : "";
}

/** A whole number in [min, max] from a flag's text, or a UsageError naming the flag. */
export function integerFlag(
  command: string,
  flag: string,
  text: string | boolean | undefined,
  min: number,
  max: number,
): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (
    typeof text !== "string" ||
    text.trim() === "" ||
    !Number.isInteger(n) ||
    n < min ||
    n > max
  ) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}`, command);
  }
  return n;
}
