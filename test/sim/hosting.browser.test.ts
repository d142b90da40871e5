import tls from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import { probeTls } from "../../shared/adapters/probes/tlsProbe.js";
import { parseConnectTo } from "../../shared/core/verification/connectTo.js";
import { judge, type Verdict } from "../../shared/core/verification/judge.js";
import { DAY_MS } from "../../shared/lib/time.js";
import {
  type Hosting,
  type HostingFault,
  type SeedCertificate,
  type Simulator,
  startSimulator,
} from "../../sim/index.js";
import { fakeClock } from "../support/clock.js";

/**
 * What a browser checks, on the simulator's hosting side: each staged fault over a real TLS socket,
 * read by the probe and judged in the contract's order (docs/contracts/verify.md).
 */

const HOUR = 3_600_000;
/** The sim clock, near the real one: OpenSSL checks the chain by the real clock. */
const START = new Date(Math.floor(Date.now() / 1000) * 1000);
const days = (n: number) => new Date(START.getTime() + n * DAY_MS);

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** One App Service certificate `c` for c.contoso.test, with `faults`; its verdict. */
async function verdictOf(
  faults: readonly HostingFault[],
  options: { expiry?: Date; trustCa?: boolean; start?: Date } = {},
): Promise<Verdict & { probe: Awaited<ReturnType<typeof probeTls>> }> {
  const clock = fakeClock((options.start ?? START).toISOString());
  const seed: SeedCertificate = {
    certificateName: "c",
    rootDomain: "c.contoso.test",
    expiryDate: options.expiry ?? days(60),
  };
  sim = await startSimulator({
    now: clock.now,
    certificates: [seed],
    hosting: { faults: { c: faults } },
  });
  const hosting = sim.hosting as Hosting;
  const ca =
    options.trustCa === false ? tls.rootCertificates : [...tls.rootCertificates, hosting.caPem];
  const probe = await probeTls(
    { host: "c.contoso.test", port: 443 },
    { connectTo: parseConnectTo(hosting.connectTo), timeoutMs: 10_000, ca },
  );
  const verdict = judge({ host: "c.contoso.test", port: 443 }, probe, {
    now: clock.now(),
    warnDays: 14,
    windowMs: 2 * HOUR,
  });
  return { ...verdict, probe };
}

describe("the hosting side's browser faults, judged", () => {
  it("by default: a leaf from the CA itself, served alone, RSA 2048, SHA-256, 90 days: ok", async () => {
    const v = await verdictOf([]);
    expect(v.status).toBe("ok");
    if (!v.probe.reached) throw new Error("not reached");
    expect(v.probe.leafIssuerFound).toBe(true);
    expect(v.probe.certificate.key).toEqual({ type: "rsa", bits: 2048 });
    expect(v.probe.certificate.signature?.name).toBe("sha256WithRSAEncryption");
  });

  it("with-intermediate: issued by the intermediate CA and sent with it: ok", async () => {
    const v = await verdictOf(["with-intermediate"]);
    expect(v.status).toBe("ok");
    expect(v.issuer).toContain("CN=certsched simulator intermediate CA");
  });

  it("omit-intermediate: incomplete-chain, with the issuer named", async () => {
    const v = await verdictOf(["omit-intermediate"]);
    expect(v.status).toBe("incomplete-chain");
    expect(v.detail).toContain("certsched simulator intermediate CA");
    expect(v.servedNotAfter).toBe(days(60).toISOString());
  });

  it("incomplete-chain comes before untrusted (no CA trusted at all) and before mismatch", async () => {
    expect((await verdictOf(["omit-intermediate"], { trustCa: false })).status).toBe(
      "incomplete-chain",
    );
    await sim?.close();
    expect((await verdictOf(["omit-intermediate", "wrong-name"])).status).toBe("incomplete-chain");
  });

  it("untrusted when the intermediate is sent but its root is not trusted", async () => {
    const v = await verdictOf(["with-intermediate"], { trustCa: false });
    expect(v.status).toBe("untrusted");
  });

  it("weak-key: an RSA key of 1024 bits is weak, and the chain is trusted", async () => {
    const v = await verdictOf(["weak-key"]);
    expect(v.status).toBe("weak");
    expect(v.detail).toContain("an RSA key of 1024 bits, under 2048");
    if (v.probe.reached) expect(v.probe.chainProblem).toBeUndefined();
  });

  it("sha1-signature: weak, not untrusted, though OpenSSL refuses the chain for that alone", async () => {
    const v = await verdictOf(["sha1-signature"]);
    expect(v.status).toBe("weak");
    expect(v.detail).toContain("sha1WithRSAEncryption");
  });

  it("a SHA-1 leaf whose root is not trusted is still untrusted (the digest hides nothing)", async () => {
    const v = await verdictOf(["sha1-signature", "with-intermediate"], { trustCa: false });
    expect(v.status).toBe("untrusted");
  });

  it("mismatch comes before weak; weak before too-long; weak and too-long before expired", async () => {
    expect((await verdictOf(["wrong-name", "weak-key"])).status).toBe("mismatch");
    await sim?.close();
    expect((await verdictOf(["weak-key", "too-long"])).status).toBe("weak");
    await sim?.close();
    expect((await verdictOf(["weak-key"], { expiry: days(-1) })).status).toBe("weak");
    await sim?.close();
    expect((await verdictOf(["too-long"], { expiry: days(-1) })).status).toBe("too-long");
  });

  it("too-long: the same notAfter, one day over the 200 days in force since 2026-03-15", async () => {
    const v = await verdictOf(["too-long"]);
    expect(v.status).toBe("too-long");
    expect(v.servedNotAfter).toBe(days(60).toISOString());
    expect(v.detail).toContain("valid for 201 days");
    expect(v.detail).toContain("more than the 200 days");
  });

  it("too-long before 2026-03-15: 399 days against 398", async () => {
    const start = new Date("2026-01-10T12:00:00Z");
    const v = await verdictOf(["too-long"], {
      start,
      expiry: new Date("2026-02-10T12:00:00Z"),
    });
    expect(v.status).toBe("too-long");
    expect(v.detail).toContain("valid for 399 days");
    expect(v.detail).toContain("the 398 days");
  });
});
