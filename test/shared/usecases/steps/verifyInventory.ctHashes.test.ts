import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { TableClient } from "@azure/data-tables";
import { afterEach, describe, expect, inject, it } from "vitest";
import {
  INVENTORY_PARTITION,
  inventoryRowKey,
} from "../../../../shared/adapters/storage/rows/inventoryRow.js";
import { tableInventory } from "../../../../shared/adapters/storage/tableInventory.js";
import { loadVerifySettings } from "../../../../shared/app/config/verifySettings.js";
import { memoryHistory } from "../../../../shared/core/ports/history.js";
import { memoryLedger } from "../../../../shared/core/ports/ledger.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import { verifyInventory } from "../../../../shared/usecases/steps/verifyInventory.js";
import { startSimulator } from "../../../../sim/index.js";
import { collectingLogger, runtimeFor, uniqueTableName } from "../../../support/app.js";
import { makeCa } from "../../../support/certificates.js";
import {
  type CtCertificateOptions,
  ctCertificate,
  expectedTbsSha256,
} from "../../../support/ctCertificates.js";
import { startTlsServer } from "../../../support/tlsServers.js";

/**
 * The Certificate Transparency hashes from the handshake to the inventory row: a watched endpoint
 * serves a certificate with embedded SCTs, the verification run reads it over a real socket, and
 * the row in Table storage (Azurite) keeps the hash of its key and of its precertificate's TBS,
 * read back by another store on the same table.
 */

const now = new Date(Math.floor(Date.now() / 1000) * 1000);
const ca = makeCa("ct inventory CA");
const HOST = "shop.ct.test";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** `openssl x509 -pubkey | openssl pkey -pubin -outform DER | sha256`. */
function opensslPubkeySha256(pem: string): string {
  const spki = execFileSync("openssl", ["x509", "-pubkey", "-noout"], { input: pem });
  const der = execFileSync("openssl", ["pkey", "-pubin", "-outform", "DER"], { input: spki });
  return createHash("sha256").update(der).digest("hex");
}

describe("CT hashes from a real handshake to the inventory row (Azurite)", () => {
  it("the watched endpoint's row keeps the key's hash and the precertificate's TBS hash", async () => {
    const options: CtCertificateOptions = {
      names: [HOST],
      sctBytes: 300,
      ca,
      notBefore: new Date(now.getTime() - DAY_MS),
      notAfter: new Date(now.getTime() + 60 * DAY_MS),
    };
    const leaf = ctCertificate("certificate", options);
    const server = await startTlsServer({ cert: leaf.pem, key: ca.key });
    closers.push(() => server.close());
    const sim = await startSimulator({ certificates: [] });
    closers.push(() => sim.close());
    const connectionString = inject("azuriteTableConnectionString");
    const tableName = uniqueTableName("ct");
    const inventory = tableInventory({ connectionString, tableName, timeoutMs: 10_000 });
    const runtime = runtimeFor(
      sim,
      { CERTSCHED_WATCH: HOST },
      { inventory, ledger: memoryLedger(), history: memoryHistory() },
    );
    closers.push(() => runtime.close());

    const { log } = collectingLogger();
    const run = await verifyInventory(runtime, log, {
      trigger: "timer",
      settings: loadVerifySettings({
        CERTSCHED_HTTP_TIMEOUT: "5s",
        CERTSCHED_VERIFY_CONNECT_TO: `${HOST}:443:127.0.0.1:${server.port}`,
      }),
      ca: [ca.cert],
    });

    expect(run.results).toMatchObject([{ domain: HOST, status: "ok" }]);
    const expected = {
      pubkeySha256: opensslPubkeySha256(leaf.pem),
      tbsSha256: expectedTbsSha256(options),
    };
    // The precertificate a CA would have logged hashes the same.
    expect(expected.tbsSha256).not.toBe(createHash("sha256").update(leaf.tbs).digest("hex"));
    // Read back by another store over the same table, and as the row itself holds it.
    const other = tableInventory({ connectionString, tableName, timeoutMs: 10_000 });
    const record = await other.get(`watch:${HOST}`);
    expect(record?.lastVerification).toMatchObject({ status: "ok", ...expected });
    const client = TableClient.fromConnectionString(connectionString, tableName, {
      allowInsecureConnection: true,
    });
    const row = await client.getEntity<Record<string, unknown>>(
      INVENTORY_PARTITION,
      inventoryRowKey(`watch:${HOST}`),
    );
    expect(JSON.parse(String(row.verification))).toMatchObject(expected);
    // Not in the line for people.
    expect(record?.lastVerification?.detail).not.toContain(expected.tbsSha256.slice(0, 16));
  });
});
