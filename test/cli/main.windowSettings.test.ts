import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../sim/index.js";
import { cliAgainst, expectNoSecret, inDays, tempDir } from "../support/cli.js";
import { ensureBuilt, runCli } from "../support/cliBuild.js";

/*
 * The renewal calendar's settings as the built CLI loads them: a declaration that is wrong, or
 * that would never let a certificate be renewed, is a configuration error naming the setting,
 * the entry and the field (exit 2), and nothing is sent to the service.
 */

let sim: Simulator | undefined;
const cleanups: (() => Promise<void>)[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function world(): Promise<{ sim: Simulator; cwd: string }> {
  sim = await startSimulator({ certificates: [{ certificateName: "www", expiryDate: inDays(3) }] });
  const dir = await tempDir();
  cleanups.push(dir.remove);
  return { sim, cwd: dir.path };
}

const json = (value: unknown) => JSON.stringify(value);
const BERLIN = { start: "0 9 * * 2-4", duration: "7h", timeZone: "Europe/Berlin" };

describe("a malformed declaration", () => {
  it("exits 2 naming each field and its rule, and sends nothing", async () => {
    const { sim, cwd } = await world();
    const env = {
      CERTSCHED_RENEWAL_WINDOWS: json([
        { ...BERLIN, start: "0 0 9 * * 2" },
        { ...BERLIN, duration: "-2h" },
      ]),
      CERTSCHED_RENEWAL_FREEZES: json([{ from: "2026-12-20", to: "2026-12-19", reason: "r" }]),
    };

    for (const command of [["due"], ["sweep"]]) {
      const result = await cliAgainst(sim, command, { env, cwd });

      expect(result.code, command.join(" ")).toBe(2);
      expect(result.stderr).toContain(
        "CERTSCHED_RENEWAL_WINDOWS[0].start: must have five fields (minute hour day-of-month month day-of-week); it has 6",
      );
      expect(result.stderr).toContain("CERTSCHED_RENEWAL_WINDOWS[1].duration: must be more than 0");
      expect(result.stderr).toContain("CERTSCHED_RENEWAL_FREEZES[0].to: must come after from");
    }
    expect(sim.requests).toEqual([]);
  });

  it("a 10,000-character start with control characters is neither echoed nor run", async () => {
    const { sim, cwd } = await world();
    const start = `\u001b]0;owned\u0007${"9 ".repeat(5_000)}`;

    const result = await cliAgainst(sim, ["due"], {
      env: { CERTSCHED_RENEWAL_WINDOWS: json([{ ...BERLIN, start }]) },
      cwd,
    });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "CERTSCHED_RENEWAL_WINDOWS[0].start: must be at most 200 characters",
    );
    expect(result.stderr).not.toContain("\u001b");
    expect(result.stderr).not.toContain("9 9 9 9 9 9");
    expect(sim.requests).toEqual([]);
  });

  it("names the declared account and its field", async () => {
    const { sim, cwd } = await world();
    const o = sim.options;
    const accounts = [
      {
        name: "contoso",
        baseUrl: sim.baseUrl,
        subscription: o.subscription,
        apiKey: o.apiKey,
        tenantId: o.tenantId,
        clientId: o.clientId,
        clientSecret: o.clientSecret,
        tokenUrl: sim.tokenUrl,
        certificatePolicy: [{ certificates: ["www"], policy: "retire" }],
      },
    ];

    // The accounts alone: the child sees nothing but them (and PATH).
    const result = await runCli(["due"], { env: { CERTSCHED_ACCOUNTS: json(accounts) }, cwd });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'CERTSCHED_ACCOUNTS[0] (account "contoso").certificatePolicy[0].policy: must be "renew" or "disabled"',
    );
    expectNoSecret(result, sim);
    expect(sim.requests).toEqual([]);
  });
});

describe("a declaration that would never renew", () => {
  it("a start that never matches (30 February) is refused at load, naming the window", async () => {
    const { sim, cwd } = await world();

    const result = await cliAgainst(sim, ["sweep"], {
      env: { CERTSCHED_RENEWAL_WINDOWS: json([{ ...BERLIN, start: "0 0 30 2 *" }]) },
      cwd,
    });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'CERTSCHED_RENEWAL_WINDOWS[0].start: "0 0 30 2 *" never matches a date in Europe/Berlin: the window never opens',
    );
    expect(sim.requests).toEqual([]);
  });
});
