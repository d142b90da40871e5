import module from "node:module";
import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Node's compile cache for the CLI: the bytecode of its chunks (zod, undici and each command)
 * kept on disk between runs, so a command does not compile them again on every start. Turned
 * on before any chunk is imported (cli/main.ts imports nothing else first).
 *
 * Where: $NODE_COMPILE_CACHE when set (Node's own setting), else the CLI's cache folder,
 * $XDG_CACHE_HOME/certsched/compile, else ~/.cache/certsched/compile. Node keeps one folder per
 * Node version inside and checks each entry against its source, so a new build or Node never
 * runs stale code. NODE_DISABLE_COMPILE_CACHE=1 turns it off. Node 20 has no compile cache (and
 * Node never fails a start for it: an unwritable folder only leaves it off): nothing to do.
 */

type Env = Readonly<Record<string, string | undefined>>;

/** The folder the CLI keeps its compiled code in. */
export function compileCacheFolder(env: Env, home: () => string = homedir): string {
  if (env.NODE_COMPILE_CACHE) return env.NODE_COMPILE_CACHE;
  return join(env.XDG_CACHE_HOME || join(home(), ".cache"), "certsched", "compile");
}

/** Turns the cache on when this Node has one; says whether it is on. */
export function enableCompileCache(env: Env): boolean {
  const enable = (module as { enableCompileCache?: (dir?: string) => { status: number } })
    .enableCompileCache;
  if (typeof enable !== "function" || env.NODE_DISABLE_COMPILE_CACHE) return false;
  try {
    const { status } = enable(compileCacheFolder(env));
    const { ENABLED, ALREADY_ENABLED } = module.constants.compileCacheStatus;
    return status === ENABLED || status === ALREADY_ENABLED;
  } catch {
    // No home folder to find, or a Node that refuses: the CLI runs as it would without.
    return false;
  }
}
