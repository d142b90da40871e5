#!/usr/bin/env node
/**
 * certsched, the operators' CLI: `certsched --help`. The only place that touches the real
 * process; everything else takes an Io, so tests run it in-process or as a child alike.
 *
 * Only the compile cache is imported statically: everything else is imported after it is on,
 * so that the CLI's code is compiled once and read back on the next runs (cli/compileCache.ts).
 */
import { enableCompileCache } from "./compileCache.js";

enableCompileCache(process.env);
const [{ processIo }, { run }] = await Promise.all([import("./io.js"), import("./run.js")]);

// exitCode, not process.exit(): stdout may be a pipe still flushing the JSON document.
process.exitCode = await run(process.argv.slice(2), processIo());
