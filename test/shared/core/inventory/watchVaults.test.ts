import { describe, expect, it } from "vitest";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import { loadVerifySettings } from "../../../../shared/app/config/verifySettings.js";
import { parseWatchVault } from "../../../../shared/core/inventory/watchVaults.js";
import { ConfigError } from "../../../../shared/lib/errors.js";

/** CERTSCHED_WATCH's mapped form (domains to vault certificates), and CERTSCHED_SYNC_WINDOW. */

const BASE = {
  CERTSCHED_BASE_URL: "https://service.invalid",
  CERTSCHED_CLOUD_CREDENTIAL: "managed-identity",
};

const load = (env: Record<string, string>) => loadSettings({ ...BASE, ...env });

function problemsOf(run: () => unknown): { name: string; message: string }[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  throw new Error("no ConfigError");
}

describe("CERTSCHED_WATCH: vault/certificate=host[:port];...", () => {
  it("maps a vault certificate to its domains, which are watched too, beside plain entries", () => {
    const s = load({
      CERTSCHED_WATCH:
        "www.fabrikam.com, kv-prod/www-contoso = WWW.contoso.com; api.contoso.com:8443 ;, kv-prod/other=www.contoso.com",
    });

    expect(s.watch.map((e) => e.label)).toEqual([
      "www.fabrikam.com",
      "www.contoso.com",
      "api.contoso.com:8443",
    ]);
    expect(
      s.watchVaults.map((v) => [
        v.keyVaultName,
        v.keyVaultCertificateName,
        v.endpoints.map((e) => [e.host, e.port]),
      ]),
    ).toEqual([
      [
        "kv-prod",
        "www-contoso",
        [
          ["www.contoso.com", 443],
          ["api.contoso.com", 8443],
        ],
      ],
      ["kv-prod", "other", [["www.contoso.com", 443]]],
    ]);
    expect(load({}).watchVaults).toEqual([]);
    expect(load({ CERTSCHED_WATCH: "www.fabrikam.com" }).watchVaults).toEqual([]);
  });

  it("names the setting and every bad entry, with its rule", () => {
    const problems = problemsOf(() =>
      load({
        CERTSCHED_WATCH: [
          "ok.contoso.com",
          "kv_prod/www=www.contoso.com",
          "kv-prod=www.contoso.com",
          "kv-prod/www.contoso=www.contoso.com",
          "kv-prod/www=",
          "kv-prod/www=https://www.contoso.com/",
          "kv-prod/www=a.contoso.com;b.contoso.com:0",
          "ab/www=www.contoso.com",
        ].join(","),
      }),
    );

    expect(problems.every((p) => p.name === "CERTSCHED_WATCH")).toBe(true);
    expect(problems).toHaveLength(7);
    const text = problems.map((p) => p.message);
    expect(text[0]).toBe(
      'entry "kv_prod/www=www.contoso.com" must be VAULT/CERTIFICATE=HOST[:PORT][;HOST[:PORT]...]: "kv_prod" is not a Key Vault name (3-24 letters, digits and single hyphens, starting with a letter)',
    );
    expect(text[1]).toContain('"kv-prod=www.contoso.com" must be VAULT/CERTIFICATE=');
    expect(text[1]).toContain('separated by "/"');
    expect(text[2]).toContain(
      '"www.contoso" is not a Key Vault certificate name (1-127 letters, digits and hyphens)',
    );
    expect(text[3]).toContain('"kv-prod/www=" must be VAULT/CERTIFICATE=');
    expect(text[3]).toContain("name at least one host");
    expect(text[4]).toContain('host "https://www.contoso.com/" must be NAME[:PORT]');
    expect(text[5]).toContain('host "b.contoso.com:0" has port "0"');
    // Two letters: one short of Azure's 3.
    expect(text[6]).toContain('"ab" is not a Key Vault name');
  });

  it("parses one entry on its own: a 24-letter vault and a 127-character certificate name, not one more", () => {
    const vault24 = `k${"v".repeat(23)}`;
    const cert127 = "c".repeat(127);
    expect(parseWatchVault(`${vault24}/${cert127}=a.test`)).toMatchObject({
      keyVaultName: vault24,
      keyVaultCertificateName: cert127,
    });
    expect(parseWatchVault(`${vault24}v/c=a.test`)).toContain("is not a Key Vault name");
    expect(parseWatchVault(`kv-prod/${cert127}c=a.test`)).toContain(
      "is not a Key Vault certificate name",
    );
  });
});

describe("CERTSCHED_SYNC_WINDOW", () => {
  it("is 24 h unless set, a duration as CERTSCHED_VERIFY_WINDOW, from 1 min to 30 d", () => {
    expect(loadVerifySettings({}).syncWindowMs).toBe(24 * 3_600_000);
    expect(loadVerifySettings({ CERTSCHED_SYNC_WINDOW: "6h" }).syncWindowMs).toBe(6 * 3_600_000);
    expect(loadVerifySettings({ CERTSCHED_SYNC_WINDOW: "PT90M" }).syncWindowMs).toBe(90 * 60_000);
    expect(loadVerifySettings({ CERTSCHED_SYNC_WINDOW: "1m" }).syncWindowMs).toBe(60_000);
    expect(loadVerifySettings({ CERTSCHED_SYNC_WINDOW: "30d" }).syncWindowMs).toBe(30 * 86_400_000);
    expect(load({ CERTSCHED_SYNC_WINDOW: "2d" }).verify().syncWindowMs).toBe(2 * 86_400_000);
  });

  it("names the setting when it is not a duration or out of range", () => {
    for (const bad of ["soon", "59s", "31d"]) {
      const problems = problemsOf(() => loadVerifySettings({ CERTSCHED_SYNC_WINDOW: bad }));
      expect(problems).toHaveLength(1);
      expect(problems[0]?.name).toBe("CERTSCHED_SYNC_WINDOW");
    }
    expect(
      problemsOf(() => loadVerifySettings({ CERTSCHED_SYNC_WINDOW: "soon" }))[0]?.message,
    ).toBe("must be a duration like 2h, 90m, 30s or PT2H");
  });
});
