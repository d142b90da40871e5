import { afterEach, describe, expect, it } from "vitest";
import { probeTls } from "../../shared/adapters/probes/tlsProbe.js";
import { loadSettings } from "../../shared/app/config/settings.js";
import { parseConnectTo } from "../../shared/core/verification/connectTo.js";
import { type Simulator, startSimulator } from "../../sim/index.js";
import {
  SAMPLE_SHARED_NAME,
  SANDBOX_CREDENTIALS,
  sandboxAccounts,
  sandboxAccountsConnectTo,
  sandboxAccountsSettings,
} from "../../sim/sandbox.js";
import { SAMPLE_NOT_SYNCED } from "../../sim/sandboxSync.js";

/**
 * The sandbox's two accounts (sim/sandbox.ts): the sample certificates split by customer zone,
 * one name both hold, each account its own credentials and vault; the settings that declare
 * them; one connect-to and one trust store for both simulators' hosting sides.
 */

const NOW = new Date("2026-05-10T08:00:00Z");
const sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((s) => s.close()));
});

async function startAccounts(withHosting: boolean) {
  const accounts: { name: string; sim: Simulator }[] = [];
  for (const spec of sandboxAccounts(new Date())) {
    const sim = await startSimulator({
      ...spec.options,
      ...(withHosting ? { hosting: { faults: spec.faults } } : {}),
    });
    sims.push(sim);
    accounts.push({ name: spec.name, sim });
  }
  return accounts;
}

describe("sandboxAccounts", () => {
  it("gives contoso the contoso.com samples and fabrikam the fabrikam.com ones, both the shared name", () => {
    const [contoso, fabrikam] = sandboxAccounts(NOW);
    const names = (spec: typeof contoso) =>
      (spec?.options.certificates ?? []).map((c) => c.certificateName);

    expect(contoso?.name).toBe("contoso");
    expect(fabrikam?.name).toBe("fabrikam");
    expect(names(contoso)).toEqual([
      "www-contoso-com",
      "shop-contoso-com",
      "api-contoso-com",
      "intranet-contoso-com",
      "staging-contoso-com",
      "blog-contoso-com",
      "static-contoso-com",
      // The staged not-synced (sim/sandboxSync.ts).
      SAMPLE_NOT_SYNCED,
      SAMPLE_SHARED_NAME,
    ]);
    expect(names(fabrikam)).toEqual([
      "legacy-fabrikam-com",
      "vault-fabrikam-com",
      "mail-fabrikam-com",
      "partners-fabrikam-com",
      "docs-fabrikam-com",
      SAMPLE_SHARED_NAME,
    ]);
    // Each customer's Key Vault certificates in its own vault.
    for (const spec of [contoso, fabrikam]) {
      const vaults = new Set(
        (spec?.options.certificates ?? []).flatMap((c) => (c.keyVaultName ? [c.keyVaultName] : [])),
      );
      expect(vaults).toEqual(new Set([`kv-${spec?.name}`]));
    }
    // contoso keeps the first account's credentials; fabrikam has its own, and no words.
    expect(contoso?.options).toMatchObject(SANDBOX_CREDENTIALS);
    expect(fabrikam?.options.apiKey).not.toBe(SANDBOX_CREDENTIALS.apiKey);
    expect(fabrikam?.options.clientSecret).not.toBe(SANDBOX_CREDENTIALS.clientSecret);
    expect(fabrikam?.options.apiKey).toMatch(/^sandbox-key-[0-9a-f]{16}$/);
    expect(fabrikam?.options.clientSecret).toMatch(/^sandbox-secret-[0-9a-f]{16}$/);
    // The staged not-landed is contoso's alone.
    expect(Object.keys(contoso?.faults ?? {})).toEqual(["shop-contoso-com"]);
    expect(fabrikam?.faults).toEqual({});
  });
});

describe("sandboxAccountsSettings", () => {
  it("declares both simulators in CERTSCHED_ACCOUNTS, which certsched's settings accept", async () => {
    const accounts = await startAccounts(false);

    const settings = sandboxAccountsSettings(accounts);

    // Without hosting there is nothing to verify: no connect-to.
    expect(Object.keys(settings)).toEqual(["CERTSCHED_ACCOUNTS"]);
    const loaded = loadSettings(settings);
    expect(loaded.accountsDeclared).toBe(true);
    expect(
      loaded.accounts.map((a) => [a.name, a.baseUrl, a.subscription, a.tokenUrl, a.apiKey]),
    ).toEqual(
      accounts.map(({ name, sim }) => [
        name,
        sim.baseUrl,
        sim.options.subscription,
        sim.tokenUrl,
        sim.options.apiKey,
      ]),
    );
  });
});

describe("sandboxAccountsConnectTo", () => {
  it("sends each vault and each domain to its own simulator, and one trust store of both CAs verifies both", async () => {
    const accounts = await startAccounts(true);
    const [contoso, fabrikam] = accounts.map((a) => a.sim);

    const value = sandboxAccountsConnectTo(accounts.map((a) => a.sim));

    const rules = parseConnectTo(value);
    expect(value).toContain(
      `kv-contoso.vault.azure.net:443:127.0.0.1:${contoso?.hosting?.vault.port}`,
    );
    expect(value).toContain(
      `kv-fabrikam.vault.azure.net:443:127.0.0.1:${fabrikam?.hosting?.vault.port}`,
    );
    expect(value).toContain(`www.contoso.com:443:127.0.0.1:${contoso?.hosting?.port}`);
    expect(value).toContain(`legacy.fabrikam.com:443:127.0.0.1:${fabrikam?.hosting?.port}`);
    expect(value).not.toContain("::");
    // Both CAs carry the same name: each leaf names its own CA by key id, so a trust store
    // holding both (one NODE_EXTRA_CA_CERTS) verifies each simulator's certificates, in
    // either order.
    const both = [contoso?.hosting?.caPem ?? "", fabrikam?.hosting?.caPem ?? ""];
    for (const ca of [both, [...both].reverse()]) {
      for (const host of ["www.contoso.com", "legacy.fabrikam.com"]) {
        const result = await probeTls(
          { host, port: 443 },
          { connectTo: rules, timeoutMs: 10_000, ca },
        );
        expect(result, host).toMatchObject({
          reached: true,
          chainProblem: undefined,
          nameProblem: undefined,
        });
      }
    }
  });
});
