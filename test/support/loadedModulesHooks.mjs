/** The loader hook of loadedModules.mjs: each module's URL, appended as it is loaded. */
import { appendFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

let file = "";

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, next) {
  appendFileSync(file, `${url.startsWith("file:") ? fileURLToPath(url) : url}\n`);
  return next(url, context);
}
