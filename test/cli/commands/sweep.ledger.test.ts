import { connect } from "node:net";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../../sim/index.js";
import { closedPort } from "../../support/app.js";
import { cliAgainst, jsonOf, seeds } from "../../support/cli.js";
import { ensureBuilt } from "../../support/cliBuild.js";

interface SweepDocument {
  ledger: string;
  failed: boolean;
  problems: string[];
  results: { certificateName: string; outcome: string; reason: string }[];
}

let sim: Simulator;
beforeAll(() => ensureBuilt(), 120_000);
afterEach(() => sim?.close());

const idBase = () => 100_000 + Math.floor(Math.random() * 800_000) * 10;

/** Whether something accepts connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

const HINT =
  "sweep without a ledger on purpose: certsched sweep --no-ledger (or unset AzureWebJobsStorage)";

describe("certsched sweep with a configured ledger that cannot be reached", () => {
  it("UseDevelopmentStorage=true without Azurite: renews nothing, exits 1, says how to do without", async () => {
    // The sample's setting; the emulator's table port must be free for this case to mean anything.
    expect(await listening(10002), "something listens on 127.0.0.1:10002").toBe(false);
    const base = idBase();
    sim = await startSimulator({ certificates: seeds(base, [3, 5]) });

    const json = await cliAgainst(sim, ["sweep", "--json"], {
      env: { AzureWebJobsStorage: "UseDevelopmentStorage=true" },
    });
    const human = await cliAgainst(sim, ["sweep"], {
      env: { AzureWebJobsStorage: "UseDevelopmentStorage=true" },
    });

    expect(json.code).toBe(1);
    const doc = jsonOf<SweepDocument>(json);
    expect(doc).toMatchObject({ ledger: "unavailable", failed: true });
    expect(doc.results.map((r) => [r.certificateName, r.outcome, r.reason])).toEqual([
      [`cert-${base}`, "not-attempted", "LedgerUnavailable"],
      [`cert-${base + 1}`, "not-attempted", "LedgerUnavailable"],
    ]);
    expect(doc.problems[0]).toMatch(
      /^renewal ledger unavailable, so no renewal was started .*cannot open table certschedrenewals \(ECONNREFUSED\)$/,
    );
    expect(json.stderr).toContain(HINT);
    expect(human.code).toBe(1);
    expect(human.stderr).toContain(HINT);
    expect(sim.requestsFor("publicRenew")).toEqual([]);
  });

  it("a full connection string to a closed port: the same", async () => {
    const port = await closedPort();
    sim = await startSimulator({ certificates: seeds(idBase(), [3]) });
    const account = "devstoreaccount1";
    const key = Buffer.from("not-a-real-key").toString("base64");
    const endpoints = ["Blob", "Queue", "Table"]
      .map((s) => `${s}Endpoint=http://127.0.0.1:${port}/${account};`)
      .join("");

    const result = await cliAgainst(sim, ["sweep", "--json"], {
      env: {
        AzureWebJobsStorage: `DefaultEndpointsProtocol=http;AccountName=${account};AccountKey=${key};${endpoints}`,
      },
    });

    expect(result.code).toBe(1);
    expect(jsonOf<SweepDocument>(result).ledger).toBe("unavailable");
    expect(result.stderr).toContain(HINT);
    expect(result.stdout + result.stderr).not.toContain(key);
    expect(sim.requestsFor("publicRenew")).toEqual([]);
  });

  it("--no-ledger sweeps without it on purpose: renews, exits 0, and says so", async () => {
    const base = idBase();
    sim = await startSimulator({ certificates: seeds(base, [3]) });

    const result = await cliAgainst(sim, ["sweep", "--no-ledger", "--json"], {
      env: { AzureWebJobsStorage: "UseDevelopmentStorage=true" },
    });

    expect(result.code).toBe(0);
    expect(jsonOf<SweepDocument>(result)).toMatchObject({ ledger: "none", failed: false });
    expect(sim.renewCallsFor(`cert-${base}`)).toBe(1);
    expect(result.stderr).toContain("--no-ledger: sweeping without the configured renewal ledger");
    expect(result.stderr).toContain("sweeping without a ledger");
    expect(result.stderr).not.toContain(HINT);
  });

  it("documents --no-ledger in its help", async () => {
    sim = await startSimulator({ certificates: [] });

    const help = await cliAgainst(sim, ["sweep", "--help"]);

    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--no-ledger\s+Sweep without the renewal ledger on purpose/);
    expect(help.stdout).toContain("Azurite");
  });
});
