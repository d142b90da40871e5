/**
 * A preload (`node --import`) that records every module a process loads, for
 * test/cli/main.startImports.test.ts: each ES module (and CommonJS module imported from one) as its
 * loader hook sees it, and at exit every CommonJS module in require's cache (those required by
 * CommonJS never reach the hook on Node 20). One line per module, appended to the file named by
 * CERTSCHED_LOADED_MODULES. Plain JavaScript: node loads it before anything is compiled.
 */
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";

const file = process.env.CERTSCHED_LOADED_MODULES;
if (file) {
  register("./loadedModulesHooks.mjs", import.meta.url, { data: { file } });
  const Module = createRequire(import.meta.url)("node:module");
  process.on("exit", () => {
    const required = Object.keys(Module._cache);
    if (required.length > 0) appendFileSync(file, `${required.join("\n")}\n`);
  });
}
