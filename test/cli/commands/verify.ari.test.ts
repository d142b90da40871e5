import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DAY_MS, HOUR_MS } from "../../../shared/lib/time.js";
import {
  type AcmeSimulator,
  type Hosting,
  type Simulator,
  startAcme,
  startSimulator,
} from "../../../sim/index.js";
import { cliAgainst, tempDir } from "../../support/cli.js";
import { ensureBuilt } from "../../support/cliBuild.js";

/**
 * `certsched verify` and the CA's word (ARI), the built CLI as a child process: it asks sim/acme
 * about what it read and says "renew now", but renews nothing (verify reads; the verification timer
 * renews).
 */

let sim: Simulator;
let acme: AcmeSimulator;
let dir: Awaited<ReturnType<typeof tempDir>>;
let caFile: string;

beforeAll(async () => {
  await ensureBuilt();
  const loopback = inject("loopbackTls");
  acme = await startAcme({
    ...loopback,
    defaultWindow: () => ({
      start: new Date(Date.now() - HOUR_MS),
      end: new Date(Date.now() + DAY_MS),
      explanationUrl: "https://ca.example/incident",
    }),
  });
  sim = await startSimulator({
    certificates: [
      {
        certificateName: "www",
        rootDomain: "www.ari-cli.test",
        expiryDate: new Date(Date.now() + 10 * DAY_MS),
      },
    ],
    hosting: {},
  });
  dir = await tempDir();
  caFile = join(dir.path, "ca.pem");
  // The child trusts the hosting CA (the probe) and the loopback certificate (sim/acme).
  await writeFile(caFile, `${(sim.hosting as Hosting).caPem}${loopback.cert}`);
}, 120_000);
afterAll(async () => {
  await sim?.close();
  await acme?.close();
  await dir?.remove();
});

describe("certsched verify with ARI", () => {
  it("says the CA asks for the renewal now, on stderr, and sends no renewal", async () => {
    const result = await cliAgainst(sim, ["verify", "--json"], {
      env: {
        CERTSCHED_VERIFY_CONNECT_TO: (sim.hosting as Hosting).connectTo,
        CERTSCHED_ARI_DIRECTORIES: `certsched simulator=${acme.directoryUrl}`,
        NODE_EXTRA_CA_CERTS: caFile,
      },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ results: [{ status: "expiring" }] });
    expect(result.stderr).toMatch(
      /certsched ARI: www: ARI window [\d-]+\.\.[\d-]+ \(renew now\): the CA asks for its renewal now/,
    );
    expect(acme.requests.some((r) => r.path.startsWith("/renewal-info/"))).toBe(true);
    expect(sim.requestsFor("renew")).toHaveLength(0);
  }, 60_000);
});
