import { closest, distance } from "fastest-levenshtein";
import { KNOWN_SETTINGS } from "../shared/app/config/schema.js";
import { ConfigError, type Problem } from "../shared/lib/errors.js";
import type { Io } from "./io.js";
import { palette } from "./output/color.js";
import { oneLine, wrapToWidth } from "./output/text.js";

const KNOWN: ReadonlySet<string> = new Set(KNOWN_SETTINGS);
const DRY_RUN = "CERTSCHED_DRY_RUN";

/** Upper case, letters and digits only: CERTSCHED_DRYRUN, certsched-dry-run and ...Dry_Run meet. */
const squeeze = (name: string) => name.toUpperCase().replace(/[^A-Z0-9]/g, "");

/** A name that was meant as one of ours: our prefix, or within two edits of a known name. */
function looksLikeOurs(name: string): string | undefined {
  if (KNOWN.has(name)) return undefined;
  const guess = closest(
    name.toUpperCase(),
    KNOWN_SETTINGS.map((k) => k.toUpperCase()),
  );
  const suggestion = KNOWN_SETTINGS.find((k) => k.toUpperCase() === guess) ?? guess;
  if (name.toUpperCase().startsWith("CERTSCHED")) return suggestion;
  return distance(name.toUpperCase(), suggestion.toUpperCase()) <= 2 ? suggestion : undefined;
}

/**
 * A misspelt dry-run switch must not turn a rehearsal into a real sweep: such names refuse to
 * run instead of warning.
 */
function meansDryRun(name: string, suggestion: string): boolean {
  return (
    suggestion === DRY_RUN ||
    squeeze(name).includes("DRYRUN") ||
    distance(squeeze(name), squeeze(DRY_RUN)) <= 3
  );
}

interface Unknown {
  readonly name: string;
  readonly source: string;
  readonly suggestion: string;
}

function unknownNames(names: Iterable<string>, source: string): Unknown[] {
  const out: Unknown[] = [];
  for (const name of names) {
    const suggestion = looksLikeOurs(name);
    if (suggestion !== undefined) out.push({ name, source, suggestion });
  }
  return out;
}

/** Where a set of names was read: the environment, or local.settings.json. */
export interface NameSource {
  readonly names: Iterable<string>;
  readonly source: string;
}

/**
 * Every name that looks like one of certsched's settings but is not (our prefix, or within two
 * edits of a known name) is a warning on stderr naming the closest known one: a misspelt
 * setting is otherwise silently ignored. A misspelt dry-run switch throws a ConfigError.
 */
export function checkSettingNames(
  io: Pick<Io, "env" | "stderr">,
  sources: readonly NameSource[],
): void {
  const refused: Problem[] = [];
  const paint = palette(io.stderr, io.env);
  for (const { names, source } of sources) {
    for (const u of unknownNames(names, source)) {
      if (meansDryRun(u.name, u.suggestion)) {
        refused.push({
          name: oneLine(u.name),
          message: `(in ${u.source}) is not a certsched setting: did you mean ${DRY_RUN}? Refusing to run: a misspelt dry-run switch would make a real sweep`,
        });
      } else {
        const line = `certsched: warning: ${oneLine(u.name)} (in ${u.source}) is not a certsched setting: did you mean ${u.suggestion}? It is ignored.`;
        io.stderr.write(`${wrapToWidth(paint.yellow(line), io.stderr.columns).join("\n")}\n`);
      }
    }
  }
  if (refused.length > 0) throw new ConfigError(refused);
}
