import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Hosting, type Simulator, startSimulator } from "../../../sim/index.js";
import { inDays, jsonOf, tempDir } from "../../support/cli.js";
import { type ChildResult, ensureBuilt, runCli } from "../../support/cliBuild.js";

/**
 * `certsched verify --domain` (the built CLI, a child process) against the simulator's hosting side
 * with the browser faults staged: each new status, its exit code (1, as the other bad statuses),
 * and the counts in the contract's order.
 */

interface Document {
  results: { domain: string; status: string; detail: string }[];
  counts: Record<string, number>;
}

/** Domain -> the faults its certificate is served with. */
const SITES = {
  "ok.browser.test": [],
  "chain.browser.test": ["omit-intermediate"],
  "full.browser.test": ["with-intermediate"],
  "weak.browser.test": ["weak-key"],
  "sha1.browser.test": ["sha1-signature"],
  "long.browser.test": ["too-long"],
} as const;

let sim: Simulator;
let env: Record<string, string>;
let dir: { path: string; remove(): Promise<void> };

beforeAll(async () => {
  dir = await tempDir();
  const names = Object.keys(SITES) as (keyof typeof SITES)[];
  sim = await startSimulator({
    certificates: names.map((domain) => ({
      certificateName: domain.split(".")[0] as string,
      rootDomain: domain,
      expiryDate: inDays(60),
    })),
    hosting: {
      faults: Object.fromEntries(names.map((d) => [d.split(".")[0] as string, SITES[d]])),
    },
  });
  const hosting = sim.hosting as Hosting;
  const caFile = join(dir.path, "hosting-ca.pem");
  await writeFile(caFile, hosting.caPem);
  env = {
    NODE_EXTRA_CA_CERTS: caFile,
    CERTSCHED_VERIFY_CONNECT_TO: hosting.connectTo,
    CERTSCHED_HTTP_TIMEOUT: "10s",
  };
  await ensureBuilt();
}, 180_000);

afterAll(async () => {
  await sim?.close();
  await dir?.remove();
});

const verify = (...domains: string[]): Promise<ChildResult> =>
  runCli(["verify", "--json", ...domains.flatMap((d) => ["--domain", d])], { env });

describe("certsched verify --domain: what a browser checks", () => {
  it("every status at once: one result each, counts in the contract's order, exit 1", async () => {
    const result = await verify(...Object.keys(SITES));
    expect(result.code).toBe(1);
    const doc = jsonOf<Document>(result);
    expect(doc.results.map((r) => [r.domain, r.status])).toEqual([
      ["ok.browser.test", "ok"],
      ["chain.browser.test", "incomplete-chain"],
      ["full.browser.test", "ok"],
      ["weak.browser.test", "weak"],
      ["sha1.browser.test", "weak"],
      ["long.browser.test", "too-long"],
    ]);
    expect(Object.entries(doc.counts)).toEqual([
      ["incomplete-chain", 1],
      ["weak", 2],
      ["too-long", 1],
      ["ok", 2],
    ]);
  });

  it.each([
    ["chain.browser.test", "incomplete-chain", "Serve the intermediate certificates"],
    ["weak.browser.test", "weak", "at least 2048 bits"],
    ["sha1.browser.test", "weak", "signed with SHA-256 or better"],
    ["long.browser.test", "too-long", "issue a shorter one"],
  ])(
    "%s alone: %s, exit 1, with its advice in the human output",
    async (domain, status, advice) => {
      const json = await verify(domain);
      expect(json.code).toBe(1);
      expect(jsonOf<Document>(json).results[0]?.status).toBe(status);
      const human = await runCli(["verify", "--domain", domain], { env });
      expect(human.code).toBe(1);
      const text = (human.stdout + human.stderr).replace(/\s+/g, " ");
      expect(text).toContain(status);
      expect(text).toContain(advice);
    },
  );

  it("a complete chain, with or without an intermediate: exit 0", async () => {
    const result = await verify("ok.browser.test", "full.browser.test");
    expect(result.code).toBe(0);
    expect(jsonOf<Document>(result).counts).toEqual({ ok: 2 });
  });

  it("the help lists the whole order and the exit codes", async () => {
    const help = await runCli(["verify", "--help"]);
    const text = help.stdout.replace(/\s+/g, " ");
    expect(text).toContain(
      "unreachable, incomplete-chain (the intermediates are not sent), untrusted, mismatch, weak",
    );
    expect(text).toContain("1 any incomplete-chain, untrusted, mismatch, weak, too-long, expired");
  });
});
