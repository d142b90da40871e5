import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadSettings } from "../../shared/app/config/settings.js";
import { ensureBuilt, ROOT } from "../support/cliBuild.js";

/** `node dist/sim/main.js`: the operator sandbox's simulators, one per account, until SIGTERM. */

const MAIN = join(ROOT, "dist", "sim", "main.js");
beforeAll(() => ensureBuilt(), 120_000);

describe("node dist/sim/main.js", () => {
  it("starts one simulator per account, prints CERTSCHED_ACCOUNTS that certsched sweeps with, stops on SIGTERM", async () => {
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = once(child, "exit");
    let stdout = "";
    try {
      child.stdout.setEncoding("utf8");
      for await (const chunk of child.stdout) {
        stdout += chunk;
        if (/^CERTSCHED_ACCOUNTS=.*\n/m.test(stdout)) break;
      }
      expect(stdout).toMatch(
        /^Certificate Scheduling Service simulator of account contoso listening on http:\/\/127\.0\.0\.1:\d+$/m,
      );
      expect(stdout).toMatch(/^Certificate Scheduling Service simulator of account fabrikam/m);
      const line = /^CERTSCHED_ACCOUNTS=(.*)$/m.exec(stdout)?.[1] ?? "[]";
      const accounts = JSON.parse(line) as { name: string; baseUrl: string }[];
      expect(accounts.map((a) => a.name)).toEqual(["contoso", "fabrikam"]);
      expect(new Set(accounts.map((a) => a.baseUrl)).size).toBe(2);

      // What it printed is accepted as it is by certsched's settings.
      const settings = loadSettings({ CERTSCHED_ACCOUNTS: line });
      expect(settings.accounts.map((a) => [a.name, a.baseUrl])).toEqual(
        accounts.map((a) => [a.name, a.baseUrl]),
      );
      // And each simulator listens where the declaration says (a closed port would throw).
      for (const account of accounts) {
        expect((await fetch(`${account.baseUrl}/identity/nothing`)).status).toBeLessThan(500);
      }
    } finally {
      child.kill("SIGTERM");
    }
    const [code] = await exited;
    expect(code).toBe(0);
  });
});
