import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSecretClientReader } from "../../../shared/adapters/identity/secretClientReader.js";
import { loadSettings } from "../../../shared/app/config/settings.js";
import { createServices, MAX_BUILT_ACCOUNTS } from "../../../shared/app/services.js";
import { memoryLedger } from "../../../shared/core/ports/ledger.js";
import { ConfigError } from "../../../shared/lib/errors.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import { type SimAccounts, startSimAccounts } from "../../support/accounts.js";
import { startFakeKeyVault, stubCredential } from "../../support/fakeKeyVault.js";

let accounts: SimAccounts;

beforeAll(async () => {
  accounts = await startSimAccounts(["contoso", "fabrikam-eu"], (name) => ({
    // The same certificate name in both accounts.
    certificates: [
      {
        certificateName: "www",
        expiryDate: new Date(Date.now() + (name === "contoso" ? 5 : 6) * DAY_MS),
      },
    ],
  }));
});

afterAll(async () => {
  await accounts.close();
});

describe("createServices with declared accounts", () => {
  it("builds each account on its own service and credentials; nothing crosses on the wire", async () => {
    const services = createServices(loadSettings(accounts.env()), { ledger: memoryLedger() });
    expect(services.accounts).toEqual(["contoso", "fabrikam-eu"]);
    try {
      const [a, b] = await Promise.all([
        services.forAccount("contoso").client.listDue(),
        services.forAccount("fabrikam-eu").client.listDue(),
      ]);
      expect(a.certificates.map((c) => c.certificateName)).toEqual(["www"]);
      expect(b.certificates.map((c) => c.certificateName)).toEqual(["www"]);
      expect(a.certificates[0]?.expiryDate).not.toEqual(b.certificates[0]?.expiryDate);
      for (const { name, sim } of accounts.accounts) {
        const other = accounts.accounts.find((x) => x.name !== name)?.sim;
        if (!other) throw new Error("two accounts expected");
        const foreign = [other.options.apiKey, other.options.clientSecret, ...other.issuedTokens()];
        expect(sim.requests.length).toBeGreaterThan(0);
        for (const request of sim.requests) {
          const wire = JSON.stringify(request);
          for (const value of foreign) expect(wire).not.toContain(value);
        }
        // Each token request named this account's own tenant and client.
        for (const request of sim.requestsFor("token")) {
          expect(request.path).toContain(sim.options.tenantId);
          expect(request.body).toContain(encodeURIComponent(sim.options.clientId));
        }
      }
      expect(services.forAccount("contoso").tokens).not.toBe(
        services.forAccount("fabrikam-eu").tokens,
      );
      expect(services.forAccount("contoso").settings.account).toBe("contoso");
      expect(services.forAccount()).toBe(services.forAccount("contoso"));
    } finally {
      await services.close();
    }
  });

  it("reads each account's secrets from Key Vault by its own secret names", async () => {
    const vault = await startFakeKeyVault({
      secrets: Object.fromEntries(
        accounts.accounts.flatMap(({ name, sim }) => [
          [`${name}-api-key`, sim.options.apiKey],
          [`${name}-client-secret`, sim.options.clientSecret],
        ]),
      ),
    });
    const declared = accounts.declarations().map((a) => {
      const { apiKey: _k, clientSecret: _s, ...rest } = a;
      return {
        ...rest,
        apiKeySecret: `${a.name}-api-key`,
        clientSecretSecret: `${a.name}-client-secret`,
      };
    });
    const services = createServices(
      loadSettings({
        CERTSCHED_ACCOUNTS: JSON.stringify(declared),
        CERTSCHED_KEY_VAULT_URL: vault.url,
      }),
      {
        ledger: memoryLedger(),
        createSecretReader: (url) =>
          createSecretClientReader(url, stubCredential, vault.clientOptions),
      },
    );
    try {
      for (const { name, sim } of accounts.accounts) {
        sim.reset();
        expect(await services.forAccount(name).client.test()).toBeTruthy();
        // The account's own secret reached its own token endpoint.
        const token = sim.requestsFor("token")[0];
        expect(token?.body).toContain(encodeURIComponent(sim.options.clientSecret));
      }
      for (const { name } of accounts.accounts) {
        expect(vault.reads(`${name}-client-secret`)).toBe(1);
      }
    } finally {
      await services.close();
      await vault.close();
    }
  });

  it("keeps at most MAX_BUILT_ACCOUNTS accounts built, letting the least recently used go", async () => {
    const count = MAX_BUILT_ACCOUNTS + 8;
    const declared = Array.from({ length: count }, (_, i) => ({
      name: `a${i}`,
      baseUrl: `https://a${i}.example`,
      subscription: `sub-${i}`,
      apiKey: `api-key-of-account-${i}-0123456789`,
      identity: "managed",
    }));
    const services = createServices(loadSettings({ CERTSCHED_ACCOUNTS: JSON.stringify(declared) }));
    try {
      const first = services.forAccount("a0");
      const kept = services.forAccount("a1");
      for (let i = 2; i < count; i++) {
        // a1 is used all along: the most recent, never let go.
        expect(services.forAccount("a1")).toBe(kept);
        expect(services.forAccount(`a${i}`).settings.baseUrl).toBe(`https://a${i}.example`);
      }
      expect(services.forAccount("a1")).toBe(kept);
      // a0 was let go and is built again, as itself.
      const again = services.forAccount("a0");
      expect(again).not.toBe(first);
      expect(again.settings.account).toBe("a0");
      expect(again.settings.baseUrl).toBe("https://a0.example");
      // The last MAX_BUILT_ACCOUNTS - 2 built are still the same objects.
      const last = `a${count - 1}`;
      expect(services.forAccount(last)).toBe(services.forAccount(last));
    } finally {
      await services.close();
    }
  });

  it("refuses an unknown account, naming the known ones", () => {
    const services = createServices(loadSettings(accounts.env()));
    let error: unknown;
    try {
      services.account("northwind");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      {
        name: "account",
        message: "'northwind' is unknown: the accounts are 'contoso', 'fabrikam-eu'",
      },
    ]);
  });
});
