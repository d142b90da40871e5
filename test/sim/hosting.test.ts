import tls from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import { probeTls } from "../../shared/adapters/probes/tlsProbe.js";
import type { ProbeResult } from "../../shared/core/ports/probes.js";
import { parseConnectTo } from "../../shared/core/verification/connectTo.js";
import { DAY_MS } from "../../shared/lib/time.js";
import {
  type Hosting,
  type HostingOptions,
  type SeedCertificate,
  type Simulator,
  startSimulator,
  WRONG_NAME,
} from "../../sim/index.js";
import { fakeClock } from "../support/clock.js";
import { apiKeyHeader, post, tokens, v3Url } from "../support/simulator.js";

const START = "2026-05-10T08:00:00.123Z";
const days = (n: number) => new Date(Date.parse(START) + n * DAY_MS);
/** X.509 keeps whole seconds. */
const toSecond = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000);

const SEEDS: SeedCertificate[] = [
  { certificateName: "www-contoso", rootDomain: "www.contoso.test", expiryDate: days(5) },
  { certificateName: "shop-contoso", rootDomain: "shop.contoso.test", expiryDate: days(12) },
  {
    certificateName: "vault-contoso",
    rootDomain: "vault.contoso.test",
    target: "Cloud Key Vault + DNS",
    keyVaultName: "kv",
    expiryDate: days(8),
  },
];

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function setUp(hosting: HostingOptions = {}, completionDelayMs = 60_000) {
  const clock = fakeClock(START);
  sim = await startSimulator({ now: clock.now, completionDelayMs, certificates: SEEDS, hosting });
  const started = sim;
  const endpoint = started.hosting as Hosting;
  const probe = (host: string, ca: readonly string[] = [endpoint.caPem]): Promise<ProbeResult> =>
    probeTls(
      { host, port: 443 },
      { connectTo: parseConnectTo(endpoint.connectTo), timeoutMs: 10_000, ca },
    );
  const renew = async (certificateName: string) => {
    const tok = await tokens(started);
    const reply = await post(v3Url(started, "renew"), {
      json: { certificateName, accessToken: tok.management },
      headers: apiKeyHeader(started),
    });
    expect(reply.status).toBe(200);
  };
  return { sim: started, endpoint, clock, probe, renew };
}

function served(result: ProbeResult) {
  if (!result.reached) throw new Error(`not reached: ${result.step} ${result.message}`);
  return result;
}

describe("the simulator's hosting endpoint", () => {
  it("serves each App Service certificate for its own rootDomain, from the throwaway CA", async () => {
    const { endpoint, probe } = await setUp();

    const www = served(await probe("www.contoso.test"));
    const shop = served(await probe("shop.contoso.test"));

    expect(endpoint.host).toBe("127.0.0.1");
    expect(endpoint.connectTo).toBe(`::127.0.0.1:${endpoint.port}`);
    expect(www.connectedTo).toBe(`127.0.0.1:${endpoint.port}`);
    expect(www.certificate.altNames).toEqual(["DNS:www.contoso.test"]);
    expect(www.certificate.notAfter).toEqual(toSecond(days(5)));
    expect(www.certificate.notBefore).toEqual(toSecond(days(5 - 90)));
    expect(shop.certificate.altNames).toEqual(["DNS:shop.contoso.test"]);
    expect(shop.certificate.notAfter).toEqual(toSecond(days(12)));
    expect(www.certificate.serial).not.toBe(shop.certificate.serial);
    // Trusted through the CA's PEM alone, and the name is covered.
    for (const r of [www, shop]) {
      expect(r.chainProblem).toBeUndefined();
      expect(r.nameProblem).toBeUndefined();
      expect(r.certificate.issuer).toContain("O=certsched simulator");
    }
  });

  it("is untrusted without its CA, as a browser would say", async () => {
    const { probe } = await setUp();

    const result = served(await probe("www.contoso.test", tls.rootCertificates));

    expect(result.chainProblem?.code).toMatch(
      /UNABLE_TO_GET_ISSUER_CERT_LOCALLY|UNABLE_TO_VERIFY_LEAF_SIGNATURE/,
    );
  });

  it("fails the handshake for a name it does not host: an unknown one, none", async () => {
    const { endpoint, probe } = await setUp();

    const unknown = await probe("nobody.contoso.test");
    // An address sends no SNI at all (RFC 6066): no name, no certificate.
    const noName = await probeTls(
      { host: "127.0.0.1", port: endpoint.port },
      { timeoutMs: 10_000, ca: [endpoint.caPem] },
    );

    for (const result of [unknown, noName]) {
      expect(result).toMatchObject({ reached: false, step: "TLS" });
      if (!result.reached) expect(`${result.code} ${result.message}`).toMatch(/handshake failure/i);
    }
  });

  it("serves the renewed certificate once the renewal completes on the sim clock", async () => {
    const { sim, clock, probe, renew } = await setUp();

    await renew("www-contoso");
    const beforeCompletion = served(await probe("www.contoso.test"));
    clock.advance(60_000);
    const afterCompletion = served(await probe("www.contoso.test"));

    expect(beforeCompletion.certificate.notAfter).toEqual(toSecond(days(5)));
    const renewed = sim.certificates().find((c) => c.certificateName === "www-contoso");
    const expected = new Date(Date.parse(START) + 60_000 + 90 * DAY_MS);
    expect(renewed?.expiryDate).toEqual(expected);
    expect(afterCompletion.certificate.notAfter).toEqual(toSecond(expected));
    expect(afterCompletion.certificate.notBefore).toEqual(
      toSecond(new Date(Date.parse(START) + 60_000)),
    );
    expect(afterCompletion.certificate.serial).not.toBe(beforeCompletion.certificate.serial);
    // The other name is untouched.
    expect(served(await probe("shop.contoso.test")).certificate.notAfter).toEqual(
      toSecond(days(12)),
    );
  });

  it("keep-old-certificate: the service completes the renewal, the endpoint still serves the old one until the fault is cleared", async () => {
    const { sim, endpoint, clock, probe, renew } = await setUp();
    endpoint.inject("www-contoso", "keep-old-certificate");
    const heard: string[] = [];
    sim.onCertificateRenewed((e) => heard.push(e.certificateName));

    await renew("www-contoso");
    clock.advance(60_000);
    const stale = served(await probe("www.contoso.test"));
    endpoint.clearFaults("www-contoso");
    const fixed = served(await probe("www.contoso.test"));

    expect(heard).toEqual(["www-contoso"]);
    const record = sim.certificates().find((c) => c.certificateName === "www-contoso");
    expect(record?.expiryDate.getTime()).toBeGreaterThan(days(5).getTime());
    expect(stale.certificate.notAfter).toEqual(toSecond(days(5)));
    expect(fixed.certificate.notAfter).toEqual(toSecond(record?.expiryDate ?? new Date(0)));
  });

  it("wrong-name: serves a certificate for another name (a mismatch), same CA and dates", async () => {
    const { endpoint, probe } = await setUp();
    endpoint.inject("shop-contoso", "wrong-name");

    const result = served(await probe("shop.contoso.test"));

    expect(result.certificate.altNames).toEqual([`DNS:${WRONG_NAME}`]);
    expect(result.nameProblem).toContain("shop.contoso.test");
    expect(result.chainProblem).toBeUndefined();
    expect(result.certificate.notAfter).toEqual(toSecond(days(12)));
  });

  it("unreachable: the connection is dropped without a handshake; other names are served", async () => {
    const { endpoint, probe } = await setUp();
    endpoint.inject("www-contoso", "unreachable");

    const dropped = await probe("www.contoso.test");
    const other = await probe("shop.contoso.test");
    endpoint.clearFaults();
    const back = await probe("www.contoso.test");

    expect(dropped).toMatchObject({ reached: false, step: "TLS", code: "ECONNRESET" });
    expect(other.reached).toBe(true);
    expect(back.reached).toBe(true);
  });

  it("takes faults from the simulator's options, one or several per certificate", async () => {
    const { clock, probe, renew } = await setUp({
      faults: {
        "www-contoso": ["keep-old-certificate", "wrong-name"],
        "shop-contoso": "unreachable",
      },
    });

    await renew("www-contoso");
    clock.advance(60_000);
    const www = served(await probe("www.contoso.test"));
    const shop = await probe("shop.contoso.test");

    expect(www.certificate.altNames).toEqual([`DNS:${WRONG_NAME}`]);
    expect(www.certificate.notAfter).toEqual(toSecond(days(5)));
    expect(shop).toMatchObject({ reached: false, code: "ECONNRESET" });
  });

  it("serves a certificate created after start once its creation completes", async () => {
    const { sim, probe } = await setUp({}, 0);
    sim.addCertificate({
      certificateName: "late",
      rootDomain: "late.contoso.test",
      expiryDate: days(40),
    });

    const result = served(await probe("late.contoso.test"));

    expect(result.certificate.altNames).toEqual(["DNS:late.contoso.test"]);
    expect(result.certificate.notAfter).toEqual(toSecond(days(40)));
  });

  it("refuses an unknown fault and a bad port; stops with the simulator", async () => {
    const { sim, endpoint } = await setUp();

    expect(() => endpoint.inject("www-contoso", "gone" as "unreachable")).toThrow(
      /must be one of keep-old-certificate, wrong-name, unreachable/,
    );
    await expect(startSimulator({ hosting: { port: 70_000 } })).rejects.toThrow(/hosting\.port/);
    await sim.close();
    const after = await probeTls(
      { host: "www.contoso.test", port: 443 },
      { connectTo: parseConnectTo(endpoint.connectTo), timeoutMs: 5_000, ca: [endpoint.caPem] },
    );
    expect(after).toMatchObject({ reached: false, step: "TCP", code: "ECONNREFUSED" });
  });

  it("on an IPv6 simulator host, its connect-to brackets the address", async () => {
    sim = await startSimulator({ host: "::1", certificates: SEEDS, hosting: {} });
    const endpoint = sim.hosting as Hosting;

    const result = served(
      await probeTls(
        { host: "www.contoso.test", port: 443 },
        { connectTo: parseConnectTo(endpoint.connectTo), timeoutMs: 10_000, ca: [endpoint.caPem] },
      ),
    );

    expect(endpoint.host).toBe("::1");
    expect(endpoint.connectTo).toBe(`::[::1]:${endpoint.port}`);
    expect(result.connectedTo).toBe(`[::1]:${endpoint.port}`);
    expect(result.certificate.altNames).toEqual(["DNS:www.contoso.test"]);
  });

  it("is off unless asked for", async () => {
    sim = await startSimulator();
    expect(sim.hosting).toBeUndefined();
  });
});
