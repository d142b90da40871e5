import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** The repository's root (this file is test/support/sourceTree.ts). */
export const REPO_ROOT = join(import.meta.dirname, "..", "..");

/** Every .ts file under `dir` (relative to the root), as root-relative paths with "/". */
export function tsFilesUnder(dir: string): string[] {
  const walk = (path: string): string[] =>
    readdirSync(path, { withFileTypes: true }).flatMap((entry) => {
      const child = join(path, entry.name);
      if (entry.isDirectory()) return walk(child);
      return entry.name.endsWith(".ts") ? [relative(REPO_ROOT, child).split(sep).join("/")] : [];
    });
  return walk(join(REPO_ROOT, dir)).sort();
}

/** A root-relative file's text. */
export function sourceText(path: string): string {
  return readFileSync(join(REPO_ROOT, path), "utf8");
}

/** Lines as `wc -l` counts them, plus an unterminated last line. */
export function lineCount(text: string): number {
  const newlines = text.split("\n").length - 1;
  return text.length > 0 && !text.endsWith("\n") ? newlines + 1 : newlines;
}
