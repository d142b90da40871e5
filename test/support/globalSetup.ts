import type { TestProject } from "vitest/node";
import { startAzurite } from "./azurite.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** Connection string of the Azurite table service started for this run. */
    azuriteTableConnectionString: string;
  }
}

/**
 * One in-memory Azurite table service for the whole run, so `npm test` needs nothing running
 * beforehand. Tests read its connection string with `inject("azuriteTableConnectionString")`.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const azurite = await startAzurite();
  project.provide("azuriteTableConnectionString", azurite.connectionString);
  return () => azurite.stop();
}
