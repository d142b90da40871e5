import { afterEach, describe, expect, it } from "vitest";
import { DAY_MS } from "../../shared/lib/time.js";
import { type CertificateRenewed, type Simulator, startSimulator } from "../../sim/index.js";
import { fakeClock } from "../support/clock.js";
import { apiKeyHeader, post, tokens, v3Url } from "../support/simulator.js";

const START = "2026-05-10T08:00:00.123Z";
const days = (n: number) => new Date(Date.parse(START) + n * DAY_MS);

let sim: Simulator;
afterEach(() => sim.close());

async function renew(certificateName: string): Promise<number> {
  const tok = await tokens(sim);
  const reply = await post(v3Url(sim, "renew"), {
    json: { certificateName, accessToken: tok.management, accessTokenKeyVault: tok.vault },
    headers: apiKeyHeader(sim),
  });
  return reply.status;
}

describe("onCertificateRenewed", () => {
  it("tells a listener of each completed renewal, once, at the first read at its completion time", async () => {
    const clock = fakeClock(START);
    sim = await startSimulator({
      now: clock.now,
      completionDelayMs: 60_000,
      certificates: [
        {
          certificateName: "vault-one",
          target: "Cloud Key Vault + DNS",
          keyVaultName: "kv-one",
          rootDomain: "vault.contoso.test",
          expiryDate: days(3),
        },
        { certificateName: "site-two", rootDomain: "www.contoso.test", expiryDate: days(4) },
      ],
    });
    const heard: CertificateRenewed[] = [];
    const stop = sim.onCertificateRenewed((event) => heard.push(event));

    expect(await renew("vault-one")).toBe(200);
    clock.advance(59_999);
    sim.certificates();
    const beforeCompletion = heard.length;
    clock.advance(1);
    sim.certificates();
    sim.certificates();

    expect(beforeCompletion).toBe(0);
    expect(heard).toEqual([
      {
        certificateName: "vault-one",
        id: 1,
        target: "Cloud Key Vault + DNS",
        rootDomain: "vault.contoso.test",
        keyVaultName: "kv-one",
        keyVaultCertificateName: "vault-one",
        issueDate: new Date(Date.parse(START) + 60_000),
        expiryDate: new Date(Date.parse(START) + 60_000 + 90 * DAY_MS),
      },
    ]);

    stop();
    expect(await renew("site-two")).toBe(200);
    clock.advance(60_000);
    sim.certificates();
    expect(heard.map((e) => e.certificateName)).toEqual(["vault-one"]);
  });
});
