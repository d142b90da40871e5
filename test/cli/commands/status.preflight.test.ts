import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tableInventory } from "../../../shared/adapters/storage/tableInventory.js";
import type { PreflightRecord } from "../../../shared/core/ports/inventory.js";
import { PREFLIGHT_ADVICE } from "../../../shared/core/preflight/advice.js";
import { DAY_MS, HOUR_MS } from "../../../shared/lib/time.js";
import { type AzuriteHandle, startAzurite } from "../../support/azurite.js";
import { jsonOf } from "../../support/cli.js";
import { ensureBuilt, runCli } from "../../support/cliBuild.js";
import { runInTerminal, screenLines } from "../../support/terminal.js";

/**
 * `certsched status` with the last preflight: the built CLI as a child process over an Azurite of
 * this file's own, its inventory rows seeded with stored preflights (the checks themselves are
 * other suites'). Offline: nothing is asked of the service.
 */

let azurite: AzuriteHandle;
const u = `${Math.floor(Math.random() * 1e9)}`;
const FAILING = `pf-failing-${u}`;
const FINE = `pf-fine-${u}`;
const UNDECIDED = `pf-undecided-${u}`;
const NEVER = `pf-never-${u}`;
const HOSTILE_DETAIL = `CAA 0 issue "evil.example"\u001b]8;;https://evil.example\u0007click\u001b[2J\n<script>`;

const at = (ms: number) => new Date(Date.now() + ms);

beforeAll(async () => {
  await ensureBuilt();
  azurite = await startAzurite();
  const inventory = tableInventory({ connectionString: azurite.connectionString });
  const seen = { source: "due-list" as const, seenAt: new Date() };
  await inventory.upsert(
    [FAILING, FINE, UNDECIDED, NEVER].map((certificateName, i) => ({
      certificateName,
      id: 7100 + i,
      rootDomain: `${certificateName}.test`,
      serviceExpiry: at(40 * DAY_MS + HOUR_MS),
      ...seen,
    })),
  );
  const stored = (status: PreflightRecord["status"], checks: PreflightRecord["checks"]) => ({
    at: at(-HOUR_MS),
    status,
    rootDomain: "contoso.test",
    checks,
  });
  await inventory.recordPreflight(
    FAILING,
    stored("will-fail", [
      { check: "caa", status: "fail", reason: "caa-forbids", detail: HOSTILE_DETAIL },
      { check: "http-challenge", status: "pass", detail: "the app answered 404" },
    ]),
  );
  await inventory.recordPreflight(
    FINE,
    stored("ready", [{ check: "caa", status: "pass", detail: "no CAA record" }]),
  );
  await inventory.recordPreflight(
    UNDECIDED,
    stored("unknown", [{ check: "caa", status: "unknown", detail: "DNS timed out after 5 s" }]),
  );
}, 120_000);
afterAll(async () => {
  await azurite?.stop();
});

const env = () => ({ AzureWebJobsStorage: azurite.connectionString });
const ALL = [FAILING, FINE, UNDECIDED, NEVER];

interface Status {
  certificateName: string;
  status: string;
  label: string;
  preflight: {
    status: string;
    at: string;
    reasons: string[];
    checks: {
      check: string;
      status: string;
      reason: string | null;
      detail: string;
      advice: string | null;
    }[];
    blocks: string | null;
  } | null;
}

describe("certsched status and the last preflight", () => {
  it("--json: each certificate's preflight object; the word stays, the label says will fail", async () => {
    const result = await runCli(["status", ...ALL, "--offline", "--json"], { env: env() });

    expect(result.code, result.stderr).toBe(0);
    const byName = new Map(
      jsonOf<{ certificates: Status[] }>(result).certificates.map((c) => [c.certificateName, c]),
    );
    const failing = byName.get(FAILING);
    expect(failing).toMatchObject({
      status: "ok",
      label: "ok · will fail (caa-forbids)",
      preflight: {
        status: "will-fail",
        reasons: ["caa-forbids"],
        blocks: "caa-forbids",
        checks: [
          {
            check: "caa",
            status: "fail",
            reason: "caa-forbids",
            advice: PREFLIGHT_ADVICE["caa-forbids"],
          },
          { check: "http-challenge", status: "pass", reason: null, advice: null },
        ],
      },
    });
    // Stored details are escaped again: no control character in the document's strings.
    expect(failing?.preflight?.checks[0]?.detail).toContain("\\u{1b}]8;;https://evil.example");
    expect(byName.get(FINE)).toMatchObject({
      label: "ok",
      preflight: { status: "ready", reasons: [] },
    });
    expect(byName.get(UNDECIDED)).toMatchObject({ label: "ok", preflight: { status: "unknown" } });
    expect(byName.get(NEVER)).toMatchObject({ label: "ok", preflight: null });
  });

  it("a PREFLIGHT column, and each will-fail certificate explained under the table, escaped", async () => {
    const result = await runCli(["status", ...ALL, "--offline"], { env: env() });

    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toMatch(
      /^CERTIFICATE\s+STATUS\s+PREFLIGHT\s+SERVED\s+SERVICE\s+LAST REQUEST\s+TRIES$/,
    );
    const row = (name: string) => lines.find((l) => l.startsWith(`${name} `)) ?? "";
    expect(row(FAILING)).toMatch(
      /^\S+\s+ok\s+will-fail \(caa-forbids\)\s+-\s+\d{4}-\d\d-\d\d 40d\s/,
    );
    expect(row(FINE)).toMatch(/^\S+\s+ok\s+ready\s+-\s/);
    expect(row(UNDECIDED)).toMatch(/^\S+\s+ok\s+unknown\s+-\s/);
    expect(row(NEVER)).toMatch(/^\S+\s+ok\s+-\s+-\s/);
    const under = lines.slice(lines.indexOf("", 1));
    const text = under.join("\n");
    expect(text).toContain(`${FAILING} will-fail (caa-forbids), checked `);
    expect(text).toContain("the sweep holds its renewal (caa-forbids)");
    expect(text).toContain(
      '  caa caa-forbids: CAA 0 issue "evil.example"\\u{1b}]8;;https://evil.example\\u{07}click\\u{1b}[2J\\u{0a}<script>',
    );
    expect(text).toContain(`    what to do: ${PREFLIGHT_ADVICE["caa-forbids"]}`);
    // Only will-fail certificates are explained.
    expect(text).not.toContain(FINE);
    for (const raw of ["\u001b", "\u0007"])
      expect(result.stdout + result.stderr).not.toContain(raw);
  });

  it("in an 80-column terminal the table fits; the reason is cut in the column, whole under it", async () => {
    const result = await runInTerminal(["status", FAILING, FINE, "--offline"], {
      columns: 80,
      env: env(),
    });

    expect(result.code).toBe(0);
    const lines = screenLines(result.raw).filter((l) => l !== "");
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(lines.join(" ").replace(/\s+/g, " ")).toContain(PREFLIGHT_ADVICE["caa-forbids"]);
  });

  it("--preflight filters by the last preflight: one word, several, or none (never checked)", async () => {
    const names = async (filter: string) => {
      const result = await runCli(
        ["status", ...ALL, "--offline", "--json", "--preflight", filter],
        {
          env: env(),
        },
      );
      expect(result.code, result.stderr).toBe(0);
      return jsonOf<{ certificates: Status[] }>(result).certificates.map((c) => c.certificateName);
    };

    expect(await names("will-fail")).toEqual([FAILING]);
    expect(await names("ready,unknown")).toEqual([FINE, UNDECIDED]);
    expect(await names("none")).toEqual([NEVER]);
  });

  it("--preflight with no match says so; an unknown word is a usage error (exit 2)", async () => {
    const none = await runCli(["status", FINE, "--offline", "--preflight", "will-fail"], {
      env: env(),
    });
    expect(none.code).toBe(0);
    expect(none.stdout).toContain("No certificate's last preflight is will-fail.");

    const bad = await runCli(["status", "--offline", "--preflight", "blocked"], { env: env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      "--preflight must be one or more of ready, will-fail, unknown, none, separated by commas",
    );
    expect(bad.stdout).toBe("");
  });
});
