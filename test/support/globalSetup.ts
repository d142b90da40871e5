import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startAzurite } from "./azurite.js";
import { makeSelfSignedCert, type SelfSignedCert } from "./tls.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** Connection string of the Azurite table service started for this run. */
    azuriteTableConnectionString: string;
    /**
     * The loopback certificate (localhost, 127.0.0.1) every test worker trusts through
     * NODE_EXTRA_CA_CERTS: for HTTPS fakes reached through Azure's SDKs, which take no `ca`
     * option of their own (test/support/arm.ts serves ARM with it).
     */
    loopbackTls: SelfSignedCert;
  }
}

/**
 * Node reads NODE_EXTRA_CA_CERTS once, at process start: set here, in the main process, before
 * the worker processes fork, every worker trusts the loopback certificate. A file the
 * environment already named is kept whole in ours (its CAs stay trusted, as before), so no other
 * test sees less than it did.
 */
async function trustLoopback(): Promise<{ tls: SelfSignedCert; undo: () => Promise<void> }> {
  const tls = await makeSelfSignedCert();
  const dir = await mkdtemp(join(tmpdir(), "certsched-loopback-ca-"));
  const file = join(dir, "loopback-ca.pem");
  const before = process.env.NODE_EXTRA_CA_CERTS;
  const kept = before?.trim() ? await readFile(before, "utf8").catch(() => "") : "";
  await writeFile(file, `${kept}${kept && !kept.endsWith("\n") ? "\n" : ""}${tls.cert}`);
  process.env.NODE_EXTRA_CA_CERTS = file;
  return {
    tls,
    undo: async () => {
      if (before === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
      else process.env.NODE_EXTRA_CA_CERTS = before;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One in-memory Azurite table service for the whole run, so `npm test` needs nothing running
 * beforehand. Tests read its connection string with `inject("azuriteTableConnectionString")`.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [azurite, loopback] = await Promise.all([startAzurite(), trustLoopback()]);
  project.provide("azuriteTableConnectionString", azurite.connectionString);
  project.provide("loopbackTls", loopback.tls);
  return async () => {
    await azurite.stop();
    await loopback.undo();
  };
}
