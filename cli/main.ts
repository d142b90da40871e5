#!/usr/bin/env node
/**
 * certsched, the operators' CLI: `certsched --help`. The only place that touches the real
 * process; everything else takes an Io, so tests run it in-process or as a child alike.
 */
import { processIo } from "./io.js";
import { run } from "./run.js";

// exitCode, not process.exit(): stdout may be a pipe still flushing the JSON document.
process.exitCode = await run(process.argv.slice(2), processIo());
