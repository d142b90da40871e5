import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS } from "../../../shared/lib/time.js";
import { type Simulator, startSimulator } from "../../../sim/index.js";
import { cliAgainst, jsonOf } from "../../support/cli.js";
import { ensureBuilt } from "../../support/cliBuild.js";

/*
 * `certsched get <name>` (the service's Get Certificate) and `certsched renew` looking the target
 * up with it, run as the built CLI against the simulator over real sockets.
 */

const PASSWORD = "pfx-password-0b7e55";
const PFX = "MIIKpfx-private-key-material-5d20";
const LINKS = {
  crtUrl: "https://files.example/www/crt",
  keyUrl: "https://files.example/www/key",
};
// Half a day past whole days, so daysLeft does not depend on when in the second the child runs.
const EXPIRY = new Date(Date.now() + 12.5 * DAY_MS);

let sim: Simulator | undefined;
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function simulator(): Promise<Simulator> {
  sim = await startSimulator({
    certificates: [
      {
        certificateName: "www contoso/1",
        rootDomain: "contoso.com",
        expiryDate: EXPIRY,
        certificateDownloadUrl: LINKS,
        password: PASSWORD,
        pfxString: PFX,
        renewal: "Manual",
      },
      {
        certificateName: "kv-contoso-com",
        target: "Cloud Key Vault + DNS",
        keyVaultName: "kv-certsched",
        expiryDate: EXPIRY,
      },
    ],
  });
  return sim;
}

describe("certsched get", () => {
  it("prints the certificate (exit 0), as JSON with --json, never its secrets", async () => {
    const s = await simulator();

    const human = await cliAgainst(s, ["get", "www contoso/1"]);
    const json = await cliAgainst(s, ["get", "www contoso/1", "--json"]);

    expect(human.code).toBe(0);
    const date = EXPIRY.toISOString().slice(0, 10);
    expect(human.stdout).toBe(
      [
        "www contoso/1",
        `  Expires (UTC)     ${date} (12 days left)`,
        "  Target            Cloud App Service",
        "  Renewal           Manual",
        "  Domain            contoso.com",
        "  Challenge         http",
        `  Issued (UTC)      ${new Date(EXPIRY.getTime() - 90 * DAY_MS).toISOString()}`,
        "  Id                1",
        `  Downloads         crtUrl ${LINKS.crtUrl}`,
        "",
      ].join("\n"),
    );
    expect(json.code).toBe(0);
    expect(jsonOf(json)).toMatchObject({
      certificateName: "www contoso/1",
      target: "Cloud App Service",
      renewal: "Manual",
      expiryDate: EXPIRY.toISOString(),
      daysLeft: 12,
      certificateDownloadUrl: { crtUrl: LINKS.crtUrl },
    });
    for (const result of [human, json]) {
      for (const secret of [PASSWORD, PFX, LINKS.keyUrl]) {
        expect(result.stdout + result.stderr).not.toContain(secret);
      }
    }
    const sent = s.requestsFor("get");
    expect(sent).toHaveLength(2);
    expect(sent[0]?.path).toMatch(/\/get\/certificatename\/www%20contoso%2F1$/);
    // The API key only: no cloud token was requested for a Get.
    expect(s.requestsFor("token")).toEqual([]);
  });

  it("exits 1 with the service's words for a name it does not know", async () => {
    const s = await simulator();

    const human = await cliAgainst(s, ["get", "nope"]);
    const json = await cliAgainst(s, ["get", "nope", "--json"]);

    expect(human.code).toBe(1);
    expect(human.stdout).toBe("");
    expect(human.stderr).toContain("Certificate nope not found");
    expect(json.code).toBe(1);
    expect(jsonOf(json)).toEqual({
      error: {
        code: "UPSTREAM_REJECTED",
        message: expect.stringContaining("Certificate nope not found"),
      },
    });
  });

  it("exits 2 without a name, with two names, or without CERTSCHED_API_KEY", async () => {
    const s = await simulator();

    const none = await cliAgainst(s, ["get"]);
    const two = await cliAgainst(s, ["get", "a", "b"]);
    const noKey = await cliAgainst(s, ["get", "www contoso/1"], {
      env: { CERTSCHED_API_KEY: "" },
    });

    expect(none.code).toBe(2);
    expect(none.stderr).toContain("the certificate name is required");
    expect(two.code).toBe(2);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("CERTSCHED_API_KEY");
    expect(s.requestsFor("get")).toEqual([]);
  });
});

describe("certsched renew looks the target up with Get Certificate", () => {
  const renewBody = (s: Simulator) =>
    JSON.parse(s.requestsFor("renew").at(-1)?.body ?? "{}") as Record<string, string>;

  it("sends accessTokenKeyVault for a key-vault certificate, the spec's two fields otherwise", async () => {
    const s = await simulator();

    const vault = await cliAgainst(s, ["renew", "kv-contoso-com"]);
    const vaultBody = renewBody(s);
    const app = await cliAgainst(s, ["renew", "www contoso/1"]);

    expect([vault.code, app.code]).toEqual([0, 0]);
    expect(Object.keys(vaultBody).sort()).toEqual([
      "accessToken",
      "accessTokenKeyVault",
      "certificateName",
    ]);
    expect(s.issuedTokens()).toContain(vaultBody.accessTokenKeyVault);
    expect(Object.keys(renewBody(s)).sort()).toEqual(["accessToken", "certificateName"]);
    expect(s.requestsFor("get")).toHaveLength(2);
    expect(vault.stderr).toBe("");
  });

  it("renews with the spec's two fields when Get Certificate fails, and says so", async () => {
    const s = await simulator();
    s.inject("get", { status: 500, body: "busy", times: 4 });

    const result = await cliAgainst(s, ["renew", "kv-contoso-com"]);

    expect(result.code).toBe(0);
    expect(Object.keys(renewBody(s)).sort()).toEqual(["accessToken", "certificateName"]);
    expect(result.stderr).toMatch(
      /certsched: could not look up (the target of )?kv-contoso-com with Get Certificate, so its renewal is sent without the vault token/,
    );
  });
});

describe("certsched due and sweep with the vendor's records", () => {
  it("lists and renews a record with an object certificateDownloadUrl, warning once", async () => {
    const s = await simulator();
    s.addCertificate({
      certificateName: "more-links",
      expiryDate: EXPIRY,
      certificateDownloadUrl: { crtUrl: "https://files.example/more/crt" },
    });

    const due = await cliAgainst(s, ["due", "--json"]);
    const sweep = await cliAgainst(s, ["sweep", "--json"]);

    expect(due.code).toBe(0);
    const listed = jsonOf<{ certificates: { certificateName: string }[] }>(due).certificates;
    expect(listed.map((c) => c.certificateName).sort()).toEqual([
      "kv-contoso-com",
      "more-links",
      "www contoso/1",
    ]);
    const warning =
      "certsched: the service sent certificateDownloadUrl as an object in 2 record(s), where spec 2.3 documents string or null: kept as sent, not used by certsched";
    expect(due.stderr.split(warning)).toHaveLength(2);
    expect(sweep.code).toBe(0);
    expect(sweep.stderr.split(warning)).toHaveLength(2);
    expect(s.renewCallsFor("www contoso/1")).toBe(1);
    expect(s.renewCallsFor("more-links")).toBe(1);
  });
});
