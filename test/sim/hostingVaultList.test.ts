import { createHash, X509Certificate } from "node:crypto";
import { request } from "node:https";
import { afterEach, describe, expect, it } from "vitest";
import type { AccountPorts } from "../../shared/app/services.js";
import { DAY_MS } from "../../shared/lib/time.js";
import { type Hosting, type Simulator, startSimulator, type VaultEstate } from "../../sim/index.js";
import { runtimeFor } from "../support/app.js";

/**
 * The simulator's vault lists its certificates (and reads each one's policy) as Key Vault does,
 * over real HTTPS on loopback with a vault token from the simulator's identity provider.
 */

const KV = "Cloud Key Vault + DNS";
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000);

let sim: Simulator | undefined;
let runtime: AccountPorts | undefined;
afterEach(async () => {
  await runtime?.close();
  await sim?.close();
  sim = runtime = undefined;
});

interface ListJson {
  value?: {
    id: string;
    x5t: string;
    attributes: { enabled: boolean; nbf: number; exp: number; created: number };
    tags: Record<string, string>;
  }[];
  nextLink?: string | null;
  lifetime_actions?: { action: { action_type: string } }[];
  issuer?: { name: string };
  error?: { code: string; message: string };
}

async function start() {
  sim = await startSimulator({
    hosting: {},
    certificates: [
      {
        certificateName: "kept",
        rootDomain: "api.vault.test",
        target: KV,
        keyVaultName: "kv-x",
        expiryDate: new Date(NOW.getTime() + 40 * DAY_MS),
      },
    ],
  });
  runtime = runtimeFor(sim);
  const hosting = sim.hosting as Hosting;
  const estate = (hosting.vault as unknown as { estate: VaultEstate }).estate;
  const token = await runtime.tokens.token(runtime.settings.vaultResource);
  const get = (vault: string, path: string, bearer: string | null = token) =>
    new Promise<{ status: number; json: ListJson }>((resolve, reject) => {
      const url = new URL(path, `https://${vault}.vault.azure.net`);
      const req = request(
        {
          host: "127.0.0.1",
          port: hosting.vault.port,
          servername: url.hostname,
          path: `${url.pathname}${url.search}`,
          headers: {
            host: url.hostname,
            ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }),
          },
          ca: hosting.caPem,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              json: JSON.parse(Buffer.concat(chunks).toString()) as ListJson,
            }),
          );
        },
      );
      req.on("error", reject);
      req.end();
    });
  return { sim, hosting, estate, get };
}

describe("the simulator's vault lists its certificates", () => {
  it("lists the service's certificate with its current version's x5t and dates, and a foreign one, paged by maxresults with nextLink", async () => {
    const { hosting, estate, get } = await start();
    const notAfter = new Date(NOW.getTime() + 9 * DAY_MS);
    estate.addForeign("kv-x", "team-old", {
      notBefore: NOW,
      notAfter,
      autoRenew: false,
      tags: { team: "gone" },
    });
    estate.addForeign("kv-x", "team-auto", { notBefore: NOW, notAfter, autoRenew: true });
    const first = await get("kv-x", "/certificates?api-version=7.5&maxresults=2");
    expect(first.status).toBe(200);
    expect(first.json.value?.map((v) => v.id)).toEqual([
      "https://kv-x.vault.azure.net/certificates/kept",
      "https://kv-x.vault.azure.net/certificates/team-old",
    ]);
    const der = hosting.vault.versions("kv-x", "kept").at(-1)?.der ?? Buffer.alloc(0);
    expect(first.json.value?.[0]?.x5t).toBe(createHash("sha1").update(der).digest("base64url"));
    expect(first.json.value?.[0]?.attributes.exp).toBe(
      Math.floor(new Date(new X509Certificate(der).validTo).getTime() / 1000),
    );
    expect(first.json.value?.[1]).toMatchObject({
      attributes: { enabled: true, exp: notAfter.getTime() / 1000 },
      tags: { team: "gone" },
    });
    expect(first.json.nextLink).toMatch(/^https:\/\/kv-x\.vault\.azure\.net\/certificates\?/);
    const second = await get("kv-x", first.json.nextLink ?? "");
    expect(second.json.value?.map((v) => v.id)).toEqual([
      "https://kv-x.vault.azure.net/certificates/team-auto",
    ]);
    expect(second.json.nextLink).toBeNull();
  });

  it("answers each certificate's policy: AutoRenew for one that renews itself, EmailContacts otherwise, with its issuer", async () => {
    const { estate, get } = await start();
    estate.addForeign("kv-x", "team-auto", {
      notBefore: NOW,
      notAfter: NOW,
      autoRenew: true,
      issuer: "DigiCert",
    });
    const auto = await get("kv-x", "/certificates/team-auto/policy?api-version=7.5");
    expect(auto.json.lifetime_actions?.map((a) => a.action.action_type)).toEqual(["AutoRenew"]);
    expect(auto.json.issuer?.name).toBe("DigiCert");
    const kept = await get("kv-x", "/certificates/kept/policy?api-version=7.5");
    expect(kept.json.lifetime_actions?.map((a) => a.action.action_type)).toEqual(["EmailContacts"]);
    expect((await get("kv-x", "/certificates/nothing/policy?api-version=7.5")).status).toBe(404);
  });

  it("answers 403 Forbidden for every request to a forbidden vault and lists the others; 401 without a token", async () => {
    const { estate, get, hosting } = await start();
    estate.addForeign("kv-team", "other", { notBefore: NOW, notAfter: NOW, autoRenew: false });
    expect(hosting.vault.connectTo()).toContain("kv-team.vault.azure.net:443:");
    estate.forbid("kv-x");
    const refused = await get("kv-x", "/certificates?api-version=7.5");
    expect(refused.status).toBe(403);
    expect(refused.json.error?.code).toBe("Forbidden");
    expect((await get("kv-x", "/certificates/kept?api-version=7.5")).status).toBe(403);
    expect((await get("kv-team", "/certificates?api-version=7.5")).json.value).toHaveLength(1);
    expect((await get("kv-team", "/certificates?api-version=7.5", null)).status).toBe(401);
    estate.forbid("kv-x", false);
    expect((await get("kv-x", "/certificates?api-version=7.5")).status).toBe(200);
  });
});
