import { createHash } from "node:crypto";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  createVaultCertificateLister,
  type VaultListerOptions,
} from "../../../../shared/adapters/estate/vaultLister.js";
import { tokenCredential } from "../../../../shared/adapters/identity/tokenCredential.js";
import { ConnectToAgent } from "../../../../shared/adapters/probes/connectToAgent.js";
import type { AccountPorts } from "../../../../shared/app/services.js";
import type { VaultRef } from "../../../../shared/core/ports/estate.js";
import { DAY_MS } from "../../../../shared/lib/time.js";
import {
  type Hosting,
  type Simulator,
  startSimulator,
  type VaultEstate,
} from "../../../../sim/index.js";
import { runtimeFor } from "../../../support/app.js";

/**
 * The vault lister through the real CertificateClient against the simulator's vault over TLS on
 * loopback, with a vault token from the simulator's identity provider: what each vault's list
 * and policies become, and what a vault that refuses or never answers becomes.
 */

const SUB = "00000000-0000-4000-8000-00000000aaaa";
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000);
const inDays = (days: number) => new Date(NOW.getTime() + days * DAY_MS);

let sim: Simulator | undefined;
let runtime: AccountPorts | undefined;
let stalled: net.Server | undefined;
const held: net.Socket[] = [];
afterEach(async () => {
  await runtime?.close();
  await sim?.close();
  for (const socket of held.splice(0)) socket.destroy();
  await new Promise<void>((r) => (stalled ? stalled.close(() => r()) : r()));
  sim = runtime = stalled = undefined;
});

/** An agent sending every connection to 127.0.0.1:port, as CERTSCHED_VERIFY_CONNECT_TO would. */
const agentTo = (port: number) => (tls: object | undefined) =>
  new ConnectToAgent(
    [{ fromHost: undefined, fromPort: undefined, toHost: "127.0.0.1", toPort: port }],
    {
      keepAlive: false,
      ...tls,
    },
  );

const vaultRef = (name: string): VaultRef => ({
  name,
  id: `/subscriptions/${SUB}/resourcegroups/rg-kv/providers/microsoft.keyvault/vaults/${name}`,
  subscriptionId: SUB,
  resourceGroup: "rg-kv",
});

async function start(overrides: Partial<VaultListerOptions> = {}) {
  sim = await startSimulator({ hosting: {} });
  runtime = runtimeFor(sim);
  const hosting = sim.hosting as Hosting;
  const estate = (hosting.vault as unknown as { estate: VaultEstate }).estate;
  const credential = tokenCredential(runtime.tokens, runtime.settings.vaultResource);
  const lister = createVaultCertificateLister({
    credential,
    vaultUrlOf: (vault) => `https://${vault.name}.vault.azure.net`,
    timeoutMs: 20_000,
    clientOptions: { tlsOptions: { ca: hosting.caPem } },
    agent: agentTo(hosting.vault.port),
    ...overrides,
  });
  return { sim, estate, lister };
}

describe("a vault's certificates", () => {
  it("are listed page by page with their dates, thumbprint, issuer, names and auto-renewal", async () => {
    const { estate, lister } = await start();
    estate.setPageSize(2);
    estate.addForeign("kv-team", "Old-Portal", {
      notBefore: inDays(-356),
      notAfter: inDays(9),
      autoRenew: false,
      issuer: "Unknown",
    });
    estate.addForeign("kv-team", "auto", {
      notBefore: NOW,
      notAfter: inDays(300),
      autoRenew: true,
    });
    estate.addForeign("kv-team", "off", {
      notBefore: NOW,
      notAfter: inDays(30),
      autoRenew: true,
      enabled: false,
    });
    const listing = await lister.list(vaultRef("kv-team"));
    expect(listing.problem).toBeUndefined();
    expect(listing.truncated).toBe(0);
    const byName = new Map(listing.certificates.map((c) => [c.name, c]));
    expect([...byName.keys()].sort()).toEqual(["auto", "off", "old-portal"]);
    const old = byName.get("old-portal");
    expect(old).toMatchObject({
      id: "https://kv-team.vault.azure.net/certificates/old-portal",
      kind: "key-vault",
      subscriptionId: SUB,
      resourceGroup: "rg-kv",
      issuer: "Unknown",
      autoRenew: false,
      hostNames: ["old-portal"],
      boundTo: [],
      problems: [],
    });
    expect(old?.expiresAt?.toISOString()).toBe(inDays(9).toISOString());
    // The simulator's x5t is SHA-1 of "{vault}/{name}" as it was added.
    const sha1 = createHash("sha1").update("kv-team/Old-Portal").digest("hex").toUpperCase();
    expect(old?.thumbprint).toBe(sha1);
    expect(byName.get("auto")).toMatchObject({ autoRenew: true, issuer: "Self" });
    expect(byName.get("off")?.problems).toEqual(["disabled in its vault"]);
  });

  it("stop at the bound, counting what was left", async () => {
    const { estate, lister } = await start({ maxCertificates: 3 });
    estate.setPageSize(2);
    for (let i = 0; i < 7; i++) {
      estate.addForeign("kv-many", `c${i}`, {
        notBefore: NOW,
        notAfter: inDays(90),
        autoRenew: false,
      });
    }
    const listing = await lister.list(vaultRef("kv-many"));
    expect(listing.certificates).toHaveLength(3);
    // Pages of two: the second page held one beyond the bound; no third page was asked.
    expect(listing.truncated).toBe(1);
  });
});

describe("a vault that cannot be listed", () => {
  it("refused (403): a problem of that vault, naming the role, never the token", async () => {
    const { sim, estate, lister } = await start();
    estate.addForeign("kv-closed", "x", { notBefore: NOW, notAfter: inDays(5), autoRenew: false });
    estate.forbid("kv-closed");
    const listing = await lister.list(vaultRef("kv-closed"));
    expect(listing.certificates).toEqual([]);
    expect(listing.problem).toEqual({
      where: "vault kv-closed",
      status: 403,
      detail:
        "vault kv-closed: refused (403): the account's identity needs Key Vault Reader on it to list its certificates",
    });
    for (const token of sim.issuedTokens()) expect(JSON.stringify(listing)).not.toContain(token);
  });

  it("never answering: a problem naming the timeout, within it", async () => {
    // Takes the connection and never answers, not even the TLS handshake.
    stalled = net.createServer((socket) => held.push(socket));
    await new Promise<void>((r) => stalled?.listen(0, "127.0.0.1", r));
    const port = (stalled.address() as AddressInfo).port;
    const { lister } = await start({
      timeoutMs: 400,
      agent: agentTo(port),
    });
    const listing = await lister.list(vaultRef("kv-silent"));
    expect(listing.problem).toMatchObject({
      where: "vault kv-silent",
      detail: "vault kv-silent: no answer within 400 ms",
    });
  });

  it("a name with control characters and markup is escaped where it is shown", async () => {
    const { lister } = await start();
    const listing = await lister.list({ ...vaultRef("kv-x"), name: "kv\u001b[31m<b>" });
    expect(listing.problem).toEqual({
      where: "vault kv\\u{1b}[31m<b>",
      detail: "vault kv\\u{1b}[31m<b>: not a Key Vault name",
      status: undefined,
    });
  });
});
