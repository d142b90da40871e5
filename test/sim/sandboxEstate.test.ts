import { request as httpsRequest } from "node:https";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS } from "../../shared/lib/time.js";
import {
  GRAPH_TYPES,
  type Hosting,
  SANDBOX_ESTATE_SUBSCRIPTION,
  SANDBOX_ESTATE_UNBOUND,
  SANDBOX_ESTATE_UNMANAGED,
  type Simulator,
  sampleCertificates,
  seedSandboxEstate,
  startSimulator,
} from "../../sim/index.js";
import { runtimeFor } from "../support/app.js";
import { startTestArm, type TestArm } from "../support/arm.js";

/** The sandbox's estate, read back over loopback from Resource Graph and the vault. */

const NOW = new Date(Math.floor(Date.now() / 1000) * 1000);
let t: TestArm;
let sim: Simulator;
let armToken: string;
let vaultToken: string;
let closeRuntime: () => Promise<void>;
beforeAll(async () => {
  t = await startTestArm();
  armToken = await t.tokens.token(t.resource);
  sim = await startSimulator({ hosting: {}, certificates: sampleCertificates(NOW) });
  const runtime = runtimeFor(sim);
  vaultToken = await runtime.tokens.token(runtime.settings.vaultResource);
  closeRuntime = () => runtime.close();
  seedSandboxEstate(sim, t.arm, { now: NOW });
});
afterAll(async () => {
  await closeRuntime();
  await sim.close();
  await t.close();
});

interface Row {
  name: string;
  subscriptionId: string;
  properties: Record<string, unknown>;
}

async function rows(type: string): Promise<Row[]> {
  const res = await request(
    `${t.arm.url}/providers/Microsoft.ResourceGraph/resources?api-version=2022-10-01`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${armToken}`, "content-type": "application/json" },
      body: JSON.stringify({ query: `resources | where type =~ '${type}'` }),
    },
  );
  return ((await res.body.json()) as { data: Row[] }).data;
}

function vaultList(
  vault: string,
): Promise<{ value: { id: string; attributes: { exp: number } }[] }> {
  const hosting = sim.hosting as Hosting;
  return new Promise((resolve, reject) => {
    const host = `${vault}.vault.azure.net`;
    const req = httpsRequest(
      {
        host: "127.0.0.1",
        port: hosting.vault.port,
        servername: host,
        path: "/certificates?api-version=7.5",
        headers: { host, authorization: `Bearer ${vaultToken}` },
        ca: hosting.caPem,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("the sandbox's estate for contoso", () => {
  it("holds the contoso App Service certificates certsched keeps, bound to their sites, and none of fabrikam's", async () => {
    const kept = sampleCertificates(NOW)
      .filter((c) => c.target === "Cloud App Service" && c.rootDomain?.endsWith("contoso.com"))
      .map((c) => c.certificateName);
    const certs = await rows(GRAPH_TYPES.appServiceCertificate);
    expect(certs.map((r) => r.name).sort()).toEqual([...kept, SANDBOX_ESTATE_UNBOUND.name].sort());
    const sites = await rows(GRAPH_TYPES.site);
    const www = certs.find((r) => r.name === "www-contoso-com");
    expect(www?.properties.hostNames).toEqual(["www.contoso.com"]);
    const bound = sites.flatMap(
      (s) => s.properties.hostNameSslStates as { name: string; thumbprint: string }[],
    );
    expect(bound).toContainEqual(
      expect.objectContaining({ name: "www.contoso.com", thumbprint: www?.properties.thumbprint }),
    );
    const unbound = certs.find((r) => r.name === SANDBOX_ESTATE_UNBOUND.name);
    expect(bound.map((b) => b.thumbprint)).not.toContain(unbound?.properties.thumbprint);
    expect((await rows(GRAPH_TYPES.vault)).map((r) => r.name).sort()).toEqual([
      "kv-certsched",
      "kv-contoso-net",
    ]);
  });

  it("has one gateway listener for portal.contoso.com whose certificate, from the team's vault secret, expires in 9 days", async () => {
    const u = SANDBOX_ESTATE_UNMANAGED;
    const [agw] = await rows(GRAPH_TYPES.gateway);
    expect(agw?.subscriptionId).toBe(SANDBOX_ESTATE_SUBSCRIPTION);
    const props = agw?.properties as {
      sslCertificates: { name: string; properties: { keyVaultSecretId: string } }[];
      httpListeners: { properties: { hostName: string; sslCertificate: { id: string } } }[];
    };
    expect(props.sslCertificates[0]?.properties.keyVaultSecretId).toBe(
      `https://${u.vault}.vault.azure.net/secrets/${u.certificate}`,
    );
    expect(props.httpListeners[0]?.properties.hostName).toBe(u.hostName);
    expect(props.httpListeners[0]?.properties.sslCertificate.id).toMatch(
      new RegExp(`/sslCertificates/${u.certificate}$`),
    );
    const listed = await vaultList(u.vault);
    expect(listed.value.map((v) => v.id)).toEqual([
      `https://${u.vault}.vault.azure.net/certificates/${u.certificate}`,
    ]);
    // An hour past the ninth day, so a report made minutes later still says 9 whole days.
    expect(listed.value[0]?.attributes.exp).toBe((NOW.getTime() + 9 * DAY_MS + 3_600_000) / 1000);
    // certsched's own vault still lists its Key Vault samples.
    expect((await vaultList("kv-certsched")).value.length).toBeGreaterThan(0);
  });
});
