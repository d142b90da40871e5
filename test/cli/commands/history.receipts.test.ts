import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { tableHistory } from "../../../shared/adapters/storage/tableHistory.js";
import { tableInventory } from "../../../shared/adapters/storage/tableInventory.js";
import {
  type Hosting,
  type HostingFault,
  type SeedCertificate,
  type Simulator,
  startSimulator,
} from "../../../sim/index.js";
import { type AzuriteHandle, startAzurite } from "../../support/azurite.js";
import { cliAgainst, inDays, jsonOf, secretsOf, tempDir } from "../../support/cli.js";
import { ensureBuilt } from "../../support/cliBuild.js";

/**
 * `certsched history <name>` shows each renewal's receipt, end to end: the built CLI as child
 * processes verifies what the simulator's hosting side serves, sweeps (the simulator completes
 * renewals at once), verifies again, then reads the history from Azurite.
 */

let dir: Awaited<ReturnType<typeof tempDir>>;
let sim: Simulator | undefined;
let azurite: AzuriteHandle | undefined;

beforeAll(async () => {
  dir = await tempDir();
  await ensureBuilt();
}, 120_000);
afterAll(async () => {
  await dir.remove();
});
afterEach(async () => {
  await sim?.close();
  await azurite?.stop();
  sim = undefined;
  azurite = undefined;
});

async function world(certificates: SeedCertificate[], faults: Record<string, HostingFault> = {}) {
  azurite = await startAzurite();
  sim = await startSimulator({ certificates, hosting: { faults } });
  const hosting = sim.hosting as Hosting;
  const caFile = join(dir.path, `hosting-${hosting.port}.pem`);
  await writeFile(caFile, hosting.caPem);
  const connectionString = azurite.connectionString;
  const env = {
    AzureWebJobsStorage: connectionString,
    NODE_EXTRA_CA_CERTS: caFile,
    CERTSCHED_VERIFY_CONNECT_TO: hosting.connectTo,
    CERTSCHED_HTTP_TIMEOUT: "10s",
  };
  const s = sim;
  return {
    sim: s,
    cli: (args: readonly string[]) => cliAgainst(s, args, { env }),
    inventory: tableInventory({ connectionString }),
    history: tableHistory({ connectionString }),
  };
}

const FINGERPRINT16 = "[0-9A-F]{16}…";
const WHOLE = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(?:\\.\\d{3})?Z";

interface HistoryDocument {
  events: { event: string; before?: Record<string, string>; after?: Record<string, string> }[];
  receipts: {
    certificateName: string;
    acceptedAt?: string;
    before?: Record<string, string>;
    after?: Record<string, string>;
    changedAt?: string;
    text: string;
  }[];
  invalid: string[];
}

describe("certsched history <name>: the served certificate before and after each renewal", () => {
  it("verify, sweep, verify: the changed-from-to line, and before/after in --json", async () => {
    const w = await world([
      { certificateName: "www", rootDomain: "www.receipt.test", expiryDate: inDays(5) },
    ]);

    const first = await w.cli(["verify", "--json"]);
    const sweep = await w.cli(["sweep", "--json"]);
    const second = await w.cli(["verify", "--json"]);
    const shown = await w.cli(["history", "www"]);
    const json = await w.cli(["history", "www", "--json"]);

    // Five days left before the renewal: critically expiring (exit 1); then ok.
    expect([first.code, sweep.code, second.code, shown.code, json.code]).toEqual([1, 0, 0, 0, 0]);
    const old = (await w.inventory.get("www"))?.lastVerification?.receipt?.before;
    expect(old?.thumbprint).toMatch(/^[0-9A-F]{64}$/);
    const lines = shown.stdout.trimEnd().split("\n");
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^served certificate changed from ${old?.thumbprint.slice(0, 16)}… \\(expires ${WHOLE}\\) to ${FINGERPRINT16} \\(expires ${WHOLE}\\) at ${WHOLE}$`,
      ),
    );
    expect(shown.stdout).toContain("landed");
    const doc = jsonOf<HistoryDocument>(json);
    expect(doc.events.map((e) => e.event)).toEqual([
      "landed",
      "verified",
      "renewal-scheduled",
      "verified",
    ]);
    expect(doc.events[0]?.before?.thumbprint).toBe(old?.thumbprint);
    expect(doc.events[0]?.after?.thumbprint).not.toBe(old?.thumbprint);
    expect(doc.events[0]?.after?.notAfter).toMatch(/^\d{4}-.*Z$/);
    expect(doc.events[2]?.before?.thumbprint).toBe(old?.thumbprint);
    expect(doc.receipts).toEqual([
      {
        certificateName: "www",
        acceptedAt: expect.any(String),
        before: expect.objectContaining({ thumbprint: old?.thumbprint }),
        after: expect.objectContaining({ thumbprint: doc.events[0]?.after?.thumbprint }),
        changedAt: expect.any(String),
        text: lines.at(-1),
      },
    ]);
    for (const secret of secretsOf(w.sim)) expect(shown.stdout + json.stdout).not.toContain(secret);
  });

  it("keep-old-certificate: it has not changed since the renewal was accepted; no landed event", async () => {
    const w = await world(
      [{ certificateName: "kept", rootDomain: "kept.receipt.test", expiryDate: inDays(5) }],
      { kept: "keep-old-certificate" },
    );

    await w.cli(["verify", "--json"]);
    await w.cli(["sweep", "--json"]);
    const pending = await w.cli(["verify", "--json"]);
    const shown = await w.cli(["history", "kept"]);

    expect(jsonOf<{ results: { status: string }[] }>(pending).results[0]?.status).toBe("pending");
    const old = (await w.inventory.get("kept"))?.lastVerification?.receipt?.before;
    expect(shown.stdout.trimEnd().split("\n").at(-1)).toMatch(
      new RegExp(
        `^served certificate has not changed since the renewal was accepted at ${WHOLE} \\(still ${old?.thumbprint.slice(0, 16)}…, expires ${WHOLE}\\)$`,
      ),
    );
    expect(shown.stdout).not.toContain("landed");
  });
});
