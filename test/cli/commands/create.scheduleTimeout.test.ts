import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../../sim/index.js";
import { cliAgainst, jsonOf, tempDir, writeJson } from "../../support/cli.js";
import { ensureBuilt } from "../../support/cliBuild.js";
import { validCreateInputs } from "../../support/createBodies.js";

/**
 * `certsched create` and `certsched renew` when the service does not answer within
 * CERTSCHED_SCHEDULE_TIMEOUT: a result a person can act on (scheduled, or unknown with how to
 * find out), never a suggestion to send it again. The built CLI against the simulator.
 */

const SHORT = { CERTSCHED_SCHEDULE_TIMEOUT: "300ms" };

let sim: Simulator;
let dir: { path: string; remove(): Promise<void> };

beforeAll(() => ensureBuilt(), 120_000);
beforeEach(async () => {
  sim = await startSimulator({
    certificates: [
      { certificateName: "www-contoso-com", expiryDate: new Date(Date.now() + 4 * 86_400_000) },
    ],
  });
  dir = await tempDir();
});
afterEach(async () => {
  await sim.close();
  await dir.remove();
});

async function requestFile(certificateName: string): Promise<string> {
  const path = join(dir.path, "request.json");
  await writeJson(path, { ...validCreateInputs().appServiceHttp, certificateName });
  return path;
}

describe("certsched create past CERTSCHED_SCHEDULE_TIMEOUT", () => {
  it("unknown: exit 1, status unknown, and how to check; sent once", async () => {
    sim.inject("create", { delayMs: 10_000 });

    const result = await cliAgainst(
      sim,
      ["create", "--file", await requestFile("late-one"), "--json"],
      { env: SHORT },
    );

    expect(result.code).toBe(1);
    const document = jsonOf<{ status: string; certificateName: string; message: string }>(result);
    expect(document).toMatchObject({
      status: "unknown",
      certificateName: "late-one",
      target: "Cloud App Service",
    });
    expect(document.message).toContain("unknown: check with certsched get late-one");
    expect(document.message).not.toMatch(/again|re-?create|retry/i);
    expect(sim.requestsFor("create")).toHaveLength(1);
    expect(sim.requestsFor("get")).toHaveLength(1);
  });

  it("confirmed by Get Certificate: exit 0, scheduled", async () => {
    sim.inject("create", { dripMs: 200 });

    const result = await cliAgainst(sim, ["create", "--file", await requestFile("slow-one")], {
      env: { ...SHORT, COLUMNS: "300" },
    });

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Creation of slow-one \(Cloud App Service\) scheduled: the service did not answer in time, but Get Certificate shows slow-one issued \S+ \(id \d+, Cloud App Service\): its creation was scheduled\n$/,
    );
  });
});

describe("certsched renew past CERTSCHED_SCHEDULE_TIMEOUT", () => {
  it("unknown: exit 1, the outcome said as unknown, not failed", async () => {
    sim.inject("renew", { delayMs: 10_000 });

    const result = await cliAgainst(sim, ["renew", "www-contoso-com"], {
      env: { ...SHORT, COLUMNS: "300" },
    });

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^Renewal of www-contoso-com outcome unknown: /);
    expect(result.stdout).toContain("unknown: check with certsched get www-contoso-com");
    expect(result.stdout).not.toContain("failed");
    expect(sim.requestsFor("renew")).toHaveLength(1);
  });
});
