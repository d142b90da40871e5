import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS, HOUR_MS } from "../../../shared/lib/time.js";
import { type Hosting, type Simulator, startSimulator } from "../../../sim/index.js";
import { cliAgainst, jsonOf, tempDir } from "../../support/cli.js";
import { ensureBuilt } from "../../support/cliBuild.js";
import { fakeClock } from "../../support/clock.js";
import { apiKeyHeader, post, tokens, v3Url } from "../../support/simulator.js";

/**
 * `certsched verify` and not-synced, in a child process with the real clock: the simulator's clock
 * runs 30 hours behind, so the vault version a renewal installs "now" on it was created 30 hours
 * ago for the CLI. The domain CERTSCHED_WATCH maps to the vault certificate keeps serving the old
 * version (its consumer lags 100 days): not-synced, exit 1; with CERTSCHED_SYNC_WINDOW=48h it is
 * pending, exit 0.
 */

interface Document {
  results: { domain: string; source: string; status: string; detail: string }[];
  counts: Record<string, number>;
}

let dir: { path: string; remove(): Promise<void> };
let sim: Simulator | undefined;
beforeAll(async () => {
  dir = await tempDir();
  await ensureBuilt();
}, 120_000);
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});
afterAll(async () => {
  await dir.remove();
});

describe("certsched verify: a domain behind its Key Vault certificate", () => {
  it("not-synced past CERTSCHED_SYNC_WINDOW exits 1 with what to do; within it pending, exit 0", async () => {
    const clock = fakeClock(new Date(Date.now() - 30 * HOUR_MS).toISOString());
    sim = await startSimulator({
      now: clock.now,
      completionDelayMs: 0,
      hosting: { vaultLag: { "kv-late": 100 * DAY_MS } },
      certificates: [
        {
          certificateName: "kv-late",
          rootDomain: "late.sync.test",
          target: "Cloud Key Vault + DNS",
          keyVaultName: "kv-sync",
          expiryDate: new Date(clock.now().getTime() + 5 * DAY_MS),
        },
      ],
    });
    const s = sim;
    const hosting = s.hosting as Hosting;
    const caFile = join(dir.path, `hosting-${hosting.port}.pem`);
    await writeFile(caFile, hosting.caPem);
    // The service renews it; the renewal completes at once on the sim clock (30 hours ago).
    const tok = await tokens(s);
    const reply = await post(v3Url(s, "renew"), {
      json: { certificateName: "kv-late", accessToken: tok.management },
      headers: apiKeyHeader(s),
    });
    expect(reply.status).toBe(200);
    s.certificates();
    expect(hosting.vault.versions("kv-sync", "kv-late")).toHaveLength(2);

    const env = {
      NODE_EXTRA_CA_CERTS: caFile,
      CERTSCHED_WATCH: "kv-sync/kv-late=late.sync.test",
      CERTSCHED_HTTP_TIMEOUT: "10s",
    };
    const json = await cliAgainst(s, ["verify", "--json"], { env });
    const text = await cliAgainst(s, ["verify"], { env });
    const wider = await cliAgainst(s, ["verify", "--json"], {
      env: { ...env, CERTSCHED_SYNC_WINDOW: "48h" },
    });

    expect(json.code).toBe(1);
    const late = jsonOf<Document>(json).results.find((r) => r.domain === "late.sync.test");
    expect(late).toMatchObject({ source: "tls", status: "not-synced" });
    expect(late?.detail).toContain("but vault kv-sync/kv-late holds version");
    expect(late?.detail).toContain("(more than 24 h, CERTSCHED_SYNC_WINDOW): re-sync");
    expect(jsonOf<Document>(json).counts["not-synced"]).toBe(1);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain("late.sync.test not-synced:");
    expect(wider.code).toBe(0);
    const pending = jsonOf<Document>(wider).results.find((r) => r.domain === "late.sync.test");
    expect(pending).toMatchObject({ status: "pending" });
    expect(pending?.detail).toContain("may take up to 48 h to pick it up (CERTSCHED_SYNC_WINDOW)");
  }, 120_000);
});
