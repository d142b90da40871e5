import { createHash } from "node:crypto";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Hosting,
  pubkeySha256,
  readServedCertificate,
  SANDBOX_CT_RENEWED,
  SANDBOX_CT_STRAY,
  type Simulator,
  sandboxIssuances,
  startCertSpotter,
  startSimulator,
  tbsSha256,
} from "../../../sim/index.js";
import { sandboxAccounts } from "../../../sim/sandbox.js";

const NOW = new Date();
const specs = sandboxAccounts(NOW);
let sim: Simulator;
beforeAll(async () => {
  const contoso = specs[0];
  if (contoso === undefined) throw new Error("the sandbox has no first account");
  sim = await startSimulator({ ...contoso.options, hosting: { faults: contoso.faults } });
});
afterAll(() => sim?.close());

describe("the sandbox's Certificate Transparency issuances", () => {
  it("logs the precertificate of what the hosting endpoint serves for www.contoso.com: same TBS and key hashes, another certificate hash", async () => {
    const served = await readServedCertificate(sim.hosting as Hosting, SANDBOX_CT_RENEWED.name);
    expect(served.subjectAltName).toBe(`DNS:${SANDBOX_CT_RENEWED.name}`);
    const { renewed } = await sandboxIssuances({ served, now: NOW });
    expect(renewed.tbsSha256).toBe(tbsSha256(served));
    expect(renewed.pubkeySha256).toBe(pubkeySha256(served));
    expect(renewed.certSha256).not.toBe(createHash("sha256").update(served.raw).digest("hex"));
    expect(renewed.dnsNames).toEqual([SANDBOX_CT_RENEWED.name]);
    expect(renewed.notAfter).toEqual(new Date(served.validTo));
    expect(renewed.issuer.friendly_name).toBe("certsched simulator");
    // The certificate is one of the sandbox's App Service certificates, and it renews.
    const cert = sim
      .certificates()
      .find((c) => c.certificateName === SANDBOX_CT_RENEWED.certificateName);
    expect(cert?.rootDomain).toBe(SANDBOX_CT_RENEWED.name);
    expect(cert?.target).toBe("Cloud App Service");
  });

  it("logs a certificate for pay.contoso.com by Unknown CA, with its own key: a name no certificate of the sandbox has", async () => {
    const served = await readServedCertificate(sim.hosting as Hosting, SANDBOX_CT_RENEWED.name);
    const { stray, all, renewed } = await sandboxIssuances({ served, now: NOW });
    expect(all).toEqual([renewed, stray]);
    expect(stray.dnsNames).toEqual([SANDBOX_CT_STRAY.name]);
    expect(stray.issuer.friendly_name).toBe("Unknown CA");
    expect(stray.pubkeySha256).not.toBe(renewed.pubkeySha256);
    expect(stray.tbsSha256).not.toBe(renewed.tbsSha256);
    expect(stray.notBefore.getTime()).toBeLessThan(NOW.getTime());
    expect(stray.notAfter.getTime()).toBeGreaterThan(NOW.getTime());
    const names = specs.flatMap((s) => s.options.certificates ?? []).map((c) => c.rootDomain);
    expect(names).not.toContain(SANDBOX_CT_STRAY.name);
    expect(names).toContain("contoso.com");
  });

  it("serves both from the simulated Cert Spotter for contoso.com with its subdomains, in order", async () => {
    const served = await readServedCertificate(sim.hosting as Hosting, SANDBOX_CT_RENEWED.name);
    const { all } = await sandboxIssuances({
      served,
      now: NOW,
      strayNames: ["pay.contoso.com", "*.pay.contoso.com"],
    });
    const ct = await startCertSpotter();
    try {
      ct.add(...all);
      const res = await request(
        `${ct.url}/v1/issuances?domain=contoso.com&include_subdomains=true&expand=dns_names&expand=issuer`,
      );
      const page = (await res.body.json()) as {
        dns_names: string[];
        issuer: { friendly_name: string };
      }[];
      expect(page.map((i) => [i.dns_names, i.issuer.friendly_name])).toEqual([
        [["www.contoso.com"], "certsched simulator"],
        [["pay.contoso.com", "*.pay.contoso.com"], "Unknown CA"],
      ]);
    } finally {
      await ct.close();
    }
  });
});
