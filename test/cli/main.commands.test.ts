import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type Simulator,
  sandboxSettings,
  startSimulator,
  toCertificateRecord,
} from "../../sim/index.js";
import { cliAgainst, expectNoSecret, inDays, jsonOf, tempDir, writeJson } from "../support/cli.js";
import { ensureBuilt, runCli } from "../support/cliBuild.js";

const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let sim: Simulator | undefined;
const cleanups: (() => Promise<void>)[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function simulator(...args: Parameters<typeof startSimulator>): Promise<Simulator> {
  sim = await startSimulator(...args);
  return sim;
}

async function workDir(): Promise<string> {
  const dir = await tempDir();
  cleanups.push(dir.remove);
  return dir.path;
}

/** A valid create request file body for each case of spec 2.1, without the tokens. */
const appServiceHttp = {
  certificateName: "new-www",
  rootDomain: "contoso.com",
  email: "admin@contoso.com",
  password: "pfx-password-123",
  isSAN: false,
  cloudSubscriptionId: "00000000-0000-4000-8000-000000000001",
  target: "Cloud App Service",
  challengeType: "http",
  cloudAppServicePlanName: "plan",
  cloudAppServicePlanResourceGroup: "rg-plan",
  cloudAppServiceResourceGroup: "rg-app",
  cloudAppServiceName: "contoso-web",
  cloudAppServiceSlotName: "",
};
const keyVault = {
  certificateName: "new-kv",
  rootDomain: "contoso.com",
  email: "admin@contoso.com",
  password: "pfx-password-123",
  isSAN: true,
  cloudSubscriptionId: "00000000-0000-4000-8000-000000000001",
  target: "Cloud Key Vault + DNS",
  challengeType: "dns",
  dnsZoneResourceGroup: "rg-dns",
  keyVaultName: "kv-contoso",
};

describe("certsched due", () => {
  it("--json lists the due certificates with ISO-8601 UTC dates and days left, no secrets", async () => {
    const s = await simulator({
      certificates: [
        { certificateName: "later", id: 11, expiryDate: inDays(12.5) },
        { certificateName: "soon", id: 12, expiryDate: inDays(2.5), keyVaultName: "kv" },
        { certificateName: "far", id: 13, expiryDate: inDays(50) },
      ],
    });

    const result = await cliAgainst(s, ["due", "--json"]);

    expect(result.code).toBe(0);
    const doc = jsonOf<{ certificates: Record<string, unknown>[] }>(result);
    expect(Object.keys(doc)).toEqual(["certificates"]);
    expect(doc.certificates.map((c) => c.certificateName)).toEqual(["soon", "later"]);
    const [soon] = doc.certificates;
    const seeded = s.certificates().find((c) => c.certificateName === "soon");
    expect(soon).toMatchObject({
      id: 12,
      daysLeft: 2,
      target: "Cloud App Service",
      issueDate: seeded?.issueDate.toISOString(),
      expiryDate: seeded?.expiryDate.toISOString(),
    });
    expect(soon?.issueDate).toMatch(ISO_UTC);
    expect(soon).not.toHaveProperty("password");
    expect(soon).not.toHaveProperty("pfxString");
    expect(s.requestsFor("list")).toHaveLength(1);
  });

  it("prints a table, soonest first, and exits 0 with a plain message when nothing is due", async () => {
    const s = await simulator({
      certificates: [
        { certificateName: "later", expiryDate: inDays(12.5) },
        { certificateName: "gone", expiryDate: inDays(-0.5) },
      ],
    });

    const table = await cliAgainst(s, ["due"]);
    const empty = await cliAgainst(await simulator(), ["due"]);

    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^CERTIFICATE\s+TARGET\s+CHALLENGE\s+EXPIRES \(UTC\)/);
    expect(lines[1]).toMatch(/^gone\s+Cloud App Service\s+http\s+\S+ \(expired\)/);
    expect(lines[2]).toMatch(/^later\s+.*\(12 days left\)/);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe("Nothing is due for renewal.\n");
  });

  it("exits 1 when the list holds an invalid record, still listing the valid ones", async () => {
    const s = await simulator({
      certificates: [{ certificateName: "good", expiryDate: inDays(3) }],
    });
    const [good] = s.certificates();
    if (!good) throw new Error("seed missing");
    const bad = { ...toCertificateRecord(good), certificateName: "bad", expiryDate: "next week" };
    s.inject("list", {
      status: 200,
      headers: { "content-type": "application/json" },
      body: JSON.stringify([toCertificateRecord(good), bad]),
    });

    const result = await cliAgainst(s, ["due", "--json"]);

    expect(result.code).toBe(1);
    const doc = jsonOf<{ certificates: { certificateName: string }[]; rejected: unknown[] }>(
      result,
    );
    expect(doc.certificates.map((c) => c.certificateName)).toEqual(["good"]);
    expect(doc.rejected).toEqual([
      expect.objectContaining({
        index: 1,
        certificateName: "bad",
        problems: [expect.objectContaining({ name: "expiryDate" })],
      }),
    ]);
    expect(result.stderr).toContain("record 1 of the list (bad) is invalid: expiryDate");
  });

  it("shows the same dates under a far time zone", async () => {
    const s = await simulator({
      certificates: [{ certificateName: "a", expiryDate: inDays(4.3) }],
    });

    const utc = await cliAgainst(s, ["due", "--json"], { env: { TZ: "UTC" } });
    const far = await cliAgainst(s, ["due", "--json"], { env: { TZ: "Pacific/Kiritimati" } });

    const dates = (r: typeof utc) =>
      jsonOf<{ certificates: { issueDate: string; expiryDate: string }[] }>(r).certificates;
    expect(dates(far)).toEqual(dates(utc));
    expect(dates(far)[0]?.expiryDate).toBe(s.certificates()[0]?.expiryDate.toISOString());
  });
});

describe("certsched create", () => {
  it.each([
    ["App Service + http", appServiceHttp, false],
    ["Key Vault + DNS", keyVault, true],
  ])("sends a valid %s file with the tokens injected (exit 0)", async (_case, body, vault) => {
    const s = await simulator();
    const dir = await workDir();
    await writeJson(join(dir, "request.json"), body);

    const result = await cliAgainst(s, ["create", "--file", "request.json", "--json"], {
      cwd: dir,
    });

    expect(result.code).toBe(0);
    expect(jsonOf(result)).toEqual({
      status: "scheduled",
      certificateName: body.certificateName,
      target: body.target,
      message: `Certificate ${body.certificateName} is scheduled for creation.`,
    });
    const [sent] = s.requestsFor("create");
    const wire = JSON.parse(sent?.body ?? "{}") as Record<string, unknown>;
    expect(wire).toMatchObject(body);
    expect(s.issuedTokens()).toContain(wire.accessToken);
    if (vault) expect(s.issuedTokens()).toContain(wire.accessTokenKeyVault);
    else expect(wire).not.toHaveProperty("accessTokenKeyVault");
    expect(sent?.headers.authorization).toBe(`Bearer ${s.options.apiKey}`);
  });

  it("prints a line for people", async () => {
    const s = await simulator();
    const dir = await workDir();
    await writeJson(join(dir, "r.json"), appServiceHttp);

    const result = await cliAgainst(s, ["create", "-f", join(dir, "r.json")]);

    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      "Creation of new-www (Cloud App Service) scheduled: Certificate new-www is scheduled for creation.\n",
    );
  });

  it("rejects an invalid file locally, naming every problem, and sends nothing (exit 2)", async () => {
    const s = await simulator();
    const dir = await workDir();
    const { cloudAppServicePlanName: _dropped, ...rest } = appServiceHttp;
    await writeJson(join(dir, "bad.json"), {
      ...rest,
      email: "not-an-address",
      keyVaultName: "kv-from-the-other-case",
      accessToken: "pasted-token",
    });

    const result = await cliAgainst(s, ["create", "--file", "bad.json"], { cwd: dir });
    const json = await cliAgainst(s, ["create", "--file", "bad.json", "--json"], { cwd: dir });

    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("bad.json is invalid; nothing was sent");
    expect(result.stderr).toContain("- cloudAppServicePlanName: is required");
    expect(result.stderr).toContain("- email: must be an e-mail address");
    expect(result.stderr).toMatch(/- keyVaultName: is not allowed/);
    expect(result.stderr).toMatch(/- accessToken: must not be sent/);
    expect(result.stderr).not.toContain("pfx-password-123");
    expect(json.code).toBe(2);
    const error = jsonOf<{ error: { code: string; problems: { name: string }[] } }>(json).error;
    expect(error.code).toBe("INPUT_INVALID");
    expect(error.problems.map((p) => p.name).sort()).toEqual(
      ["accessToken", "cloudAppServicePlanName", "email", "keyVaultName"].sort(),
    );
    // Not even a token request: the file is checked before anything else.
    expect(s.requests).toEqual([]);
  });

  it("rejects a file that is not JSON, or missing, or no --file at all (exit 2, nothing sent)", async () => {
    const s = await simulator();
    const dir = await workDir();
    await writeFile(join(dir, "broken.json"), "{ not json");

    const broken = await cliAgainst(s, ["create", "--file", "broken.json"], { cwd: dir });
    const missing = await cliAgainst(s, ["create", "--file", "nowhere.json"], { cwd: dir });
    const noFlag = await cliAgainst(s, ["create"], { cwd: dir });

    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("broken.json is not valid JSON");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nowhere\.json: not found/);
    expect(noFlag.code).toBe(2);
    expect(noFlag.stderr).toContain("--file is required");
    expect(s.requests).toEqual([]);
  });

  it("exits 1 when the service refuses the request", async () => {
    const s = await simulator();
    s.inject("create", { status: 400, body: "Certificate name already in use" });
    const dir = await workDir();
    await writeJson(join(dir, "request.json"), appServiceHttp);

    const result = await cliAgainst(s, ["create", "--file", "request.json"], { cwd: dir });

    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("Certificate name already in use");
    expect(s.requestsFor("create")).toHaveLength(1);
  });

  it("a missing API key is a configuration error naming CERTSCHED_API_KEY (exit 2)", async () => {
    const s = await simulator();
    const dir = await workDir();
    await writeJson(join(dir, "request.json"), appServiceHttp);

    const result = await cliAgainst(s, ["create", "--file", "request.json"], {
      cwd: dir,
      env: { CERTSCHED_API_KEY: "" },
    });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("CERTSCHED_API_KEY: is required");
    expect(s.requestsFor("create")).toEqual([]);
  });
});

describe("certsched renew", () => {
  it("schedules the renewal by name (exit 0) and exits 1 for a name the service does not know", async () => {
    const s = await simulator({
      certificates: [{ certificateName: "www contoso/1", expiryDate: inDays(50) }],
    });

    const ok = await cliAgainst(s, ["renew", "www contoso/1"]);
    const json = await cliAgainst(s, ["renew", "www contoso/1", "--json"]);
    const unknown = await cliAgainst(s, ["renew", "nope", "--json"]);

    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe(
      "Renewal of www contoso/1 scheduled: Certificate www contoso/1 is scheduled for update.\n",
    );
    expect(jsonOf(json)).toMatchObject({ status: "scheduled", certificateName: "www contoso/1" });
    expect(s.renewCallsFor("www contoso/1")).toBe(2);
    expect(unknown.code).toBe(1);
    expect(jsonOf(unknown)).toEqual({
      error: {
        code: "UPSTREAM_REJECTED",
        message: expect.stringContaining("Certificate nope not found"),
      },
    });
    expect(unknown.stderr).toContain("Certificate nope not found");
  });

  it("needs a name or --all-due, not both (exit 2)", async () => {
    const s = await simulator();

    const none = await cliAgainst(s, ["renew"]);
    const both = await cliAgainst(s, ["renew", "a", "--all-due"]);

    expect(none.code).toBe(2);
    expect(none.stderr).toContain("the certificate name is required");
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("give certificate names or --all-due, not both");
    expect(s.requests).toEqual([]);
  });
});

describe("certsched test", () => {
  it("reports a working connection (exit 0)", async () => {
    const s = await simulator();

    const human = await cliAgainst(s, ["test"]);
    const json = await cliAgainst(s, ["test", "--json"]);

    expect(human.code).toBe(0);
    expect(human.stdout).toBe(`Connected to ${s.baseUrl}: Connection successful.\n`);
    expect(jsonOf(json)).toEqual({
      account: "default",
      status: "ok",
      service: s.baseUrl,
      message: "Connection successful.",
    });
    expect(s.requestsFor("test")).toHaveLength(2);
  });

  it("exits 1 naming the refusal when the client secret is wrong, without printing it", async () => {
    const s = await simulator();

    const result = await cliAgainst(s, ["test"], {
      env: { CERTSCHED_CLIENT_SECRET: "wrong-secret-value" },
    });

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/TOKEN_REFUSED|AADSTS/);
    expect(result.stdout + result.stderr).not.toContain("wrong-secret-value");
    expect(s.requestsFor("test")).toEqual([]);
  });
});

describe("usage and help", () => {
  it.each([["sweep"], ["due"], ["create"], ["renew"], ["test"], ["sandbox"], ["windows"]])(
    "certsched %s --help prints its usage on stdout (exit 0)",
    async (command) => {
      const result = await runCli([command, "--help"]);

      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Usage: certsched ${command}`));
      expect(result.stdout).toContain("Exit codes:");
      expect(result.stderr).toBe("");
    },
  );

  it("certsched --help lists every command (exit 0); no command at all is a usage error", async () => {
    const help = await runCli(["--help"]);
    const bare = await runCli([]);

    expect(help.code).toBe(0);
    for (const command of ["sweep", "due", "create", "renew", "test", "sandbox", "windows"]) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\s+\\S`, "m"));
    }
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe("");
    expect(bare.stderr).toContain("Usage: certsched <command>");
  });

  it("an unknown command or flag is a usage error naming it (exit 2)", async () => {
    const command = await runCli(["swep"]);
    const flag = await runCli(["due", "--jsno"]);
    const value = await runCli(["sweep", "--dry-run=yes"]);

    expect(command.code).toBe(2);
    expect(command.stderr).toContain('unknown command "swep"');
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("--jsno");
    expect(flag.stderr).toContain('Run "certsched due --help"');
    expect(value.code).toBe(2);
    expect(value.stderr).toContain("--dry-run");
    expect(command.stdout + flag.stdout + value.stdout).toBe("");
  });

  it("with --json, a usage error still leaves exactly one JSON document on stdout", async () => {
    const result = await runCli(["due", "--json", "--bogus"]);

    expect(result.code).toBe(2);
    expect(jsonOf(result)).toMatchObject({ error: { code: "USAGE" } });
  });
});

describe("configuration", () => {
  it("a missing CERTSCHED_BASE_URL is a configuration error naming it (exit 2)", async () => {
    const s = await simulator();
    const { CERTSCHED_BASE_URL: _unset, ...rest } = sandboxSettings(s);
    const cwd = await workDir();

    for (const command of [["sweep"], ["due", "--json"], ["test"], ["renew", "x"]]) {
      const result = await runCli(command, { env: rest, cwd });
      expect(result.code, command.join(" ")).toBe(2);
      expect(result.stderr).toContain("CERTSCHED_BASE_URL: is required");
      expect(result.stderr).toContain("local.settings.json");
    }
    expect(s.requests).toEqual([]);
  });

  it("reads the Values of local.settings.json in the working directory; the environment wins", async () => {
    const s = await simulator({ certificates: [{ certificateName: "a", expiryDate: inDays(3) }] });
    const cwd = await workDir();
    await writeJson(join(cwd, "local.settings.json"), {
      IsEncrypted: false,
      Values: { FUNCTIONS_WORKER_RUNTIME: "node", ...sandboxSettings(s) },
    });

    const fromFile = await runCli(["due", "--json"], { cwd });
    // An environment value overrides the file's: here a base URL nothing listens on.
    const overridden = await runCli(["test"], {
      cwd,
      env: { CERTSCHED_BASE_URL: "http://127.0.0.1:9", CERTSCHED_HTTP_TIMEOUT: "2s" },
    });

    expect(fromFile.code).toBe(0);
    expect(jsonOf<{ certificates: { certificateName: string }[] }>(fromFile).certificates).toEqual([
      expect.objectContaining({ certificateName: "a" }),
    ]);
    expect(overridden.code).toBe(1);
    expect(overridden.stderr).toContain("cannot reach the service");
    expect(overridden.stderr).toContain("Check CERTSCHED_BASE_URL");
    expect(s.requestsFor("test")).toEqual([]);
    // Read from a file rather than the environment, the secrets stay as unprinted.
    expectNoSecret(fromFile, s);
    expectNoSecret(overridden, s);
  });

  it("an invalid local.settings.json is a configuration error naming the file (exit 2)", async () => {
    const cwd = await workDir();
    await writeFile(join(cwd, "local.settings.json"), '{ "Values": { "CERTSCHED_BASE_URL": ');

    const result = await runCli(["due"], { cwd });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("local.settings.json: is not valid JSON");
  });

  it("names every invalid setting at once", async () => {
    const cwd = await workDir();
    const result = await runCli(["due"], {
      cwd,
      env: {
        CERTSCHED_BASE_URL: "http://service.example.com",
        CERTSCHED_RENEWAL_CONCURRENCY: "0",
        CERTSCHED_TENANT_ID: "t",
        CERTSCHED_CLIENT_ID: "c",
        CERTSCHED_CLIENT_SECRET: "s",
      },
    });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("- CERTSCHED_BASE_URL: must use https");
    expect(result.stderr).toContain("- CERTSCHED_RENEWAL_CONCURRENCY: must be a whole number");
  });
});
