import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { probeTls } from "../../shared/adapters/probes/tlsProbe.js";
import type { ProbeResult } from "../../shared/core/ports/probes.js";
import { parseConnectTo } from "../../shared/core/verification/connectTo.js";
import { DAY_MS, HOUR_MS } from "../../shared/lib/time.js";
import {
  type Hosting,
  type HostingOptions,
  type Simulator,
  startSimulator,
} from "../../sim/index.js";
import { fakeClock } from "../support/clock.js";
import { apiKeyHeader, post, tokens, v3Url } from "../support/simulator.js";

/**
 * The consumers of the simulator's vault (sim/hosting/vaultServing.ts): a Key Vault certificate's
 * rootDomain is served, over a real TLS handshake, the vault version its consumer has picked up:
 * the newest at least `vaultLag` old on the sim clock.
 */

const START = "2026-05-10T08:00:00.500Z";
const NAME = "kv-lag";
const DOMAIN = "cdn.lag.test";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function setUp(hosting: HostingOptions) {
  const clock = fakeClock(START);
  sim = await startSimulator({
    now: clock.now,
    completionDelayMs: 60_000,
    hosting,
    certificates: [
      {
        certificateName: NAME,
        rootDomain: DOMAIN,
        target: "Cloud Key Vault + DNS",
        keyVaultName: "kv-lagging",
        expiryDate: new Date(Date.parse(START) + 5 * DAY_MS),
      },
    ],
  });
  const s = sim;
  const endpoint = s.hosting as Hosting;
  const served = async (): Promise<string> => {
    const result: ProbeResult = await probeTls(
      { host: DOMAIN, port: 443 },
      { connectTo: parseConnectTo(endpoint.connectTo), timeoutMs: 10_000, ca: [endpoint.caPem] },
    );
    if (!result.reached) throw new Error(`not reached: ${result.step} ${result.message}`);
    expect(result.chainProblem).toBeUndefined();
    expect(result.nameProblem).toBeUndefined();
    return result.certificate.thumbprint;
  };
  const versions = () => endpoint.vault.versions("kv-lagging", NAME);
  const thumbprintOf = (i: number) =>
    createHash("sha256")
      .update(versions()[i]?.der ?? Buffer.alloc(0))
      .digest("hex")
      .toUpperCase();
  const renew = async () => {
    const tok = await tokens(s);
    const reply = await post(v3Url(s, "renew"), {
      json: { certificateName: NAME, accessToken: tok.management },
      headers: apiKeyHeader(s),
    });
    expect(reply.status).toBe(200);
  };
  return { clock, endpoint, served, versions, thumbprintOf, renew };
}

describe("the hosting side serves a Key Vault certificate's domain with the version its consumer has", () => {
  it("keeps serving the old version until the lag has passed since the new one was created (pinned at its last millisecond)", async () => {
    const { clock, served, versions, thumbprintOf, renew } = await setUp({
      vaultLag: { [NAME]: HOUR_MS },
    });

    expect(await served()).toBe(thumbprintOf(0));
    await renew();
    clock.advance(60_000);
    const onRenewal = await served();
    expect(versions()).toHaveLength(2);
    const created = (versions()[1]?.created ?? 0) * 1000;
    clock.advance(created + HOUR_MS - 1 - clock.now().getTime());
    const lastOld = await served();
    clock.advance(1);
    const caughtUp = await served();

    expect(onRenewal).toBe(thumbprintOf(0));
    expect(lastOld).toBe(thumbprintOf(0));
    expect(caughtUp).toBe(thumbprintOf(1));
    expect(thumbprintOf(1)).not.toBe(thumbprintOf(0));
  });

  it("without a lag serves the current version at once; setVaultLag changes it while running; a bad lag is refused", async () => {
    const { clock, endpoint, served, thumbprintOf, renew } = await setUp({});

    await renew();
    clock.advance(60_000);
    expect(await served()).toBe(thumbprintOf(1));
    endpoint.setVaultLag(NAME, DAY_MS);
    expect(await served()).toBe(thumbprintOf(0));
    endpoint.setVaultLag(NAME, undefined);
    expect(await served()).toBe(thumbprintOf(1));
    expect(() => endpoint.setVaultLag(NAME, -1)).toThrow(
      "Simulator option hosting.vaultLag for kv-lag must be a number of ms >= 0, got -1",
    );
  });

  it("stageVersions replaces the history, each version created when it says; the unreachable fault resets the connection", async () => {
    const { clock, endpoint, served, versions, thumbprintOf } = await setUp({
      vaultLag: { [NAME]: 2 * DAY_MS },
    });
    const now = clock.now().getTime();

    endpoint.vault.stageVersions("kv-lagging", NAME, [
      {
        notBefore: new Date(now - 60 * DAY_MS),
        notAfter: new Date(now + 30 * DAY_MS),
        created: new Date(now - 60 * DAY_MS),
      },
      {
        notBefore: new Date(now - DAY_MS),
        notAfter: new Date(now + 89 * DAY_MS),
        created: new Date(now - DAY_MS),
      },
    ]);

    expect(versions().map((v) => v.created)).toEqual([
      Math.floor((now - 60 * DAY_MS) / 1000),
      Math.floor((now - DAY_MS) / 1000),
    ]);
    expect(await served()).toBe(thumbprintOf(0));
    endpoint.inject(NAME, "unreachable");
    await expect(served()).rejects.toThrow(/not reached: TLS/);
    expect(() => endpoint.vault.stageVersions("kv-lagging", "nobody", [])).toThrow(
      "the simulator has no Key Vault certificate kv-lagging/nobody",
    );
  });
});
