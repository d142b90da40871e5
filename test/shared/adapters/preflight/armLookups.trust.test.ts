import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { armLookups } from "../../../../shared/adapters/preflight/armLookups.js";
import { type ArmSimulator, startArm } from "../../../../sim/index.js";
import { makeSelfSignedCert, type SelfSignedCert } from "../../../support/tls.js";

/*
 * Which ARM the adapter trusts: Node's CA store plus NODE_EXTRA_CA_CERTS (read at process
 * start), or the `ca` a caller passes (the sandbox's process, started without it). The
 * certificate made here, in this worker, is not the one globalSetup put in NODE_EXTRA_CA_CERTS.
 */

const credential = {
  getToken: async () => ({
    token: "untrusted-arm-token-1f5e9c2d",
    expiresOnTimestamp: Date.now() + 3_600_000,
  }),
};

let arm: ArmSimulator;
let tls: SelfSignedCert;
beforeAll(async () => {
  tls = await makeSelfSignedCert();
  arm = await startArm({ ...tls });
  arm.addZone({
    subscriptionId: "s",
    resourceGroup: "rg",
    name: "contoso.com",
    nameServers: ["ns1.example."],
  });
});
afterAll(() => arm.close());

describe("TLS trust of Azure Resource Manager", () => {
  it("is unknown for an ARM whose certificate nothing trusts, and no token is sent to it", async () => {
    const answer = await armLookups({ armUrl: arm.url, credential, timeoutMs: 2_000 }).dnsZone(
      "s",
      "rg",
      "contoso.com",
    );
    expect(answer.kind).toBe("unknown");
    expect(answer.kind === "unknown" && answer.detail).toMatch(/self[- ]signed certificate/i);
    expect(arm.requests).toHaveLength(0);
  });

  it("reads it when the caller trusts its certificate", async () => {
    const answer = await armLookups({
      armUrl: arm.url,
      credential,
      timeoutMs: 2_000,
      tlsOptions: { ca: tls.cert },
    }).dnsZone("s", "rg", "contoso.com");
    expect(answer).toEqual({ kind: "found", value: { nameServers: ["ns1.example."] } });
  });
});
