import { afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { DAY_MS } from "../../../shared/lib/time.js";
import { type Simulator, startSimulator } from "../../../sim/index.js";
import { cliAgainst, inDays, jsonOf, seeds } from "../../support/cli.js";
import { ensureBuilt } from "../../support/cliBuild.js";

interface SweepResult {
  certificateName: string;
  id: number;
  target: string;
  expiryDate: string;
  daysLeft: number;
  outcome: string;
  detail: string;
  status?: number;
  error?: string;
}
interface SweepDocument {
  dryRun: boolean;
  ledger: string;
  listError?: string;
  results: SweepResult[];
  counts: Record<string, number>;
  failed: boolean;
  problems: string[];
}

const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ANSI = "\u001b[";
const REFUSAL = "Renewal refused: DNS zone 'contoso-dns' not found in resource group 'rg-dns'";

let sim: Simulator;
beforeAll(() => ensureBuilt(), 120_000);
afterEach(() => sim?.close());

/** Ids per test, so the shared Azurite table never mixes two tests' certificates. */
const idBase = () => 100_000 + Math.floor(Math.random() * 800_000) * 10;

describe("certsched sweep", () => {
  it("renews what is due and prints one JSON document with every result (exit 0)", async () => {
    const base = idBase();
    sim = await startSimulator({ certificates: seeds(base, [3, 10, -1, 45]) });

    const result = await cliAgainst(sim, ["sweep", "--json"]);

    expect(result.code).toBe(0);
    const doc = jsonOf<SweepDocument>(result);
    expect(doc.dryRun).toBe(false);
    expect(doc.failed).toBe(false);
    const byName = new Map(sim.certificates().map((c) => [c.certificateName, c]));
    expect(doc.results.map((r) => r.certificateName).sort()).toEqual([
      `cert-${base}`,
      `cert-${base + 1}`,
      `cert-${base + 2}`,
    ]);
    for (const r of doc.results) {
      expect(Object.keys(r).sort()).toEqual(
        [
          "account",
          "certificateName",
          "daysLeft",
          "detail",
          "expiryDate",
          "id",
          "outcome",
          "reason",
          "target",
        ].sort(),
      );
      expect(r.outcome).toBe("renewal-scheduled");
      expect(r.target).toBe("Cloud App Service");
      expect(r.expiryDate).toMatch(ISO_UTC);
      expect(r.id).toBe(Number(r.certificateName.slice("cert-".length)));
      expect(sim.renewCallsFor(r.certificateName)).toBe(1);
    }
    // The sim has renewed them by now (completion delay 0), so compare with the seeds' days.
    const first = doc.results.find((r) => r.certificateName === `cert-${base}`);
    expect(first?.daysLeft).toBe(2);
    expect(doc.results.find((r) => r.certificateName === `cert-${base + 2}`)?.daysLeft).toBe(-2);
    expect(byName.get(`cert-${base + 3}`)?.renewals).toBe(0);
    expect(doc.counts).toEqual({
      "renewal-scheduled": 3,
      "would-renew": 0,
      skipped: 0,
      failed: 0,
      stuck: 0,
      blocked: 0,
      "not-attempted": 0,
      deferred: 0,
      waiting: 0,
      disabled: 0,
      due: 3,
    });
  });

  it("prints a table for people, without colour or progress when not on a terminal", async () => {
    const base = idBase();
    const expiry = inDays(5);
    sim = await startSimulator({ certificates: seeds(base, [5, 40]) });

    const result = await cliAgainst(sim, ["sweep"]);

    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toMatch(/^CERTIFICATE\s+TARGET\s+EXPIRES \(UTC\)\s+OUTCOME$/);
    const row = lines.find((l) => l.startsWith(`cert-${base} `));
    expect(row).toMatch(
      new RegExp(
        `^cert-${base}\\s+Cloud App Service\\s+${expiry.toISOString().slice(0, 10)} \\(4 days left\\)\\s+renewal-scheduled$`,
      ),
    );
    expect(result.stdout).not.toContain(`cert-${base + 1}`);
    expect(result.stdout).toContain("1 due: 1 renewal-scheduled.");
    expect(result.stdout + result.stderr).not.toContain(ANSI);
    expect(result.stderr).not.toContain("\r");
    // Without storage the sweep says so, on stderr.
    expect(result.stderr).toContain("sweeping without a ledger");
  });

  it("exits 1 when a renewal fails, naming it with the service's status and words", async () => {
    const base = idBase();
    sim = await startSimulator({
      certificates: [
        ...seeds(base, [4]),
        { certificateName: "refused", id: base + 5, expiryDate: inDays(6), refuseRenewal: REFUSAL },
      ],
    });

    const json = await cliAgainst(sim, ["sweep", "--json"]);
    const human = await cliAgainst(sim, ["sweep"]);

    expect(json.code).toBe(1);
    const doc = jsonOf<SweepDocument>(json);
    expect(doc.failed).toBe(true);
    expect(doc.counts.failed).toBe(1);
    expect(doc.counts["renewal-scheduled"]).toBe(1);
    const failed = doc.results.find((r) => r.certificateName === "refused");
    expect(failed).toMatchObject({ outcome: "failed", status: 400, error: "UPSTREAM_REJECTED" });
    expect(failed?.detail).toContain(REFUSAL);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/refused\s+Cloud App Service\s+\S+ \(\d+ days? left\)\s+failed/);
    expect(human.stdout).toContain("The sweep failed:");
    expect(human.stdout).toContain(REFUSAL);
  });

  it("--dry-run decides but sends no renewal", async () => {
    sim = await startSimulator({ certificates: seeds(idBase(), [2, 8]) });

    const result = await cliAgainst(sim, ["sweep", "--dry-run", "--json"]);

    expect(result.code).toBe(0);
    const doc = jsonOf<SweepDocument>(result);
    expect(doc.dryRun).toBe(true);
    expect(doc.results.map((r) => r.outcome)).toEqual(["would-renew", "would-renew"]);
    expect(sim.requestsFor("list")).toHaveLength(1);
    expect(sim.requestsFor("publicRenew")).toHaveLength(0);
  });

  it("exits 0 with an empty result when nothing is due", async () => {
    sim = await startSimulator({ certificates: seeds(idBase(), [30, 60]) });

    const json = await cliAgainst(sim, ["sweep", "--json"]);
    const human = await cliAgainst(sim, ["sweep"]);

    expect(json.code).toBe(0);
    expect(jsonOf<SweepDocument>(json)).toMatchObject({ results: [], failed: false });
    expect(jsonOf<SweepDocument>(json).counts.due).toBe(0);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("Nothing is due for renewal.");
  });

  it("exits 1 with listError when the list itself fails", async () => {
    sim = await startSimulator({ certificates: seeds(idBase(), [2]) });
    sim.inject("list", {
      status: 400,
      body: "Subscription suspended",
      times: Number.POSITIVE_INFINITY,
    });

    const result = await cliAgainst(sim, ["sweep", "--json"]);

    expect(result.code).toBe(1);
    const doc = jsonOf<SweepDocument>(result);
    expect(doc.failed).toBe(true);
    expect(doc.results).toEqual([]);
    expect(doc.listError).toContain("Subscription suspended");
    expect(sim.requestsFor("publicRenew")).toHaveLength(0);
  });

  it.each([["0"], ["65"], ["two"], ["1.5"]])(
    "--concurrency %s is a usage error (exit 2) and nothing is sent",
    async (value) => {
      sim = await startSimulator({ certificates: seeds(idBase(), [2]) });

      const result = await cliAgainst(sim, ["sweep", "--concurrency", value]);

      expect(result.code).toBe(2);
      expect(result.stderr).toContain("--concurrency must be a whole number from 1 to 64");
      expect(result.stdout).toBe("");
      expect(sim.requests).toEqual([]);
    },
  );

  it("--concurrency 1 sweeps one certificate at a time and still renews all", async () => {
    sim = await startSimulator({ certificates: seeds(idBase(), [1, 2, 3]) });

    const result = await cliAgainst(sim, ["sweep", "--concurrency", "1", "--json"]);

    expect(result.code).toBe(0);
    expect(jsonOf<SweepDocument>(result).counts["renewal-scheduled"]).toBe(3);
  });

  it("uses the function app's ledger when AzureWebJobsStorage names real storage", async () => {
    const base = idBase();
    // Renewals stay pending for an hour, so the certificate is still listed on the second run.
    sim = await startSimulator({ certificates: seeds(base, [3]), completionDelayMs: 3_600_000 });
    const env = { AzureWebJobsStorage: inject("azuriteTableConnectionString") };

    const first = await cliAgainst(sim, ["sweep", "--json"], { env });
    const second = await cliAgainst(sim, ["sweep", "--json"], { env });

    expect(first.code).toBe(0);
    expect(jsonOf<SweepDocument>(first)).toMatchObject({ ledger: "table" });
    expect(jsonOf<SweepDocument>(first).results[0]?.outcome).toBe("renewal-scheduled");
    expect(second.code).toBe(0);
    const again = jsonOf<SweepDocument>(second).results[0];
    expect(again?.outcome).toBe("skipped");
    expect(again?.detail).toContain("renewal requested");
    expect(sim.renewCallsFor(`cert-${base}`)).toBe(1);
    expect(first.stderr).not.toContain("without a ledger");
  });

  it("prints the same UTC dates under a far time zone (Pacific/Kiritimati, UTC+14)", async () => {
    // 20:00 UTC is already the next day in Kiritimati: a local-time slip would show.
    const at = new Date(Math.ceil(Date.now() / DAY_MS) * DAY_MS + 3 * DAY_MS + 20 * 3_600_000);
    sim = await startSimulator({
      certificates: [{ certificateName: "late-evening", id: idBase(), expiryDate: at }],
    });

    const utc = await cliAgainst(sim, ["sweep", "--dry-run", "--json"], { env: { TZ: "UTC" } });
    const far = await cliAgainst(sim, ["sweep", "--dry-run", "--json"], {
      env: { TZ: "Pacific/Kiritimati" },
    });
    const table = await cliAgainst(sim, ["sweep", "--dry-run"], {
      env: { TZ: "Pacific/Kiritimati" },
    });

    expect(far.code).toBe(0);
    const farResult = jsonOf<SweepDocument>(far).results[0];
    expect(farResult?.expiryDate).toBe(at.toISOString());
    expect(farResult?.expiryDate).toBe(jsonOf<SweepDocument>(utc).results[0]?.expiryDate);
    expect(table.stdout).toContain(`${at.toISOString().slice(0, 10)} (`);
  });

  it("never prints a secret, even when the service echoes one (verbose logs included)", async () => {
    const base = idBase();
    sim = await startSimulator({ certificates: seeds(base, [2]) });
    const { apiKey, clientSecret } = sim.options;
    sim.addCertificate({
      certificateName: "echo",
      id: base + 7,
      expiryDate: inDays(3),
      refuseRenewal: `rejected: key ${apiKey} secret ${clientSecret}`,
    });

    // cliAgainst scans stdout and stderr for the key, the secret and every issued token.
    const verbose = await cliAgainst(sim, ["sweep", "--verbose"]);
    const json = await cliAgainst(sim, ["sweep", "--json"]);

    expect(verbose.code).toBe(1);
    expect(verbose.stdout).toContain("rejected: key [REDACTED] secret [REDACTED]");
    expect(verbose.stderr).toContain("certsched sweep summary");
    expect(json.stdout).toContain("[REDACTED]");
    expect(sim.issuedTokens().length).toBeGreaterThan(0);
  });
});
