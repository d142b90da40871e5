import { afterEach, describe, expect, it } from "vitest";
import { renewDueCertificates } from "../../../../functions/renewDueCertificates.js";
import { probeTls } from "../../../../shared/adapters/probes/tlsProbe.js";
import { loadVerifySettings } from "../../../../shared/app/config/verifySettings.js";
import { type Ledger, memoryLedger } from "../../../../shared/core/ports/ledger.js";
import {
  type NamedEndpoint,
  parseEndpoint,
} from "../../../../shared/core/verification/endpoint.js";
import type { AcceptedRenewal } from "../../../../shared/core/verification/judge.js";
import type { VerifyResult } from "../../../../shared/core/verification/targets.js";
import { DAY_MS, HOUR_MS } from "../../../../shared/lib/time.js";
import { verifyTargets } from "../../../../shared/usecases/verifyDomains.js";
import type { Hosting, HostingFault, SeedCertificate } from "../../../../sim/index.js";
import { type AppHarness, startHarness } from "../../../support/app.js";
import { fakeClock } from "../../../support/clock.js";
import { timer } from "../../../support/invoke.js";

/**
 * From renewal to landing, end to end over real sockets: the timer's sweep renews through the
 * simulator, the ledger records the acceptance, and verification reads what the simulator's hosting
 * endpoint serves: pending within CERTSCHED_VERIFY_WINDOW, then ok once the renewal landed, or
 * not-landed when the endpoint kept the old certificate.
 */

const COMPLETION_MS = 30 * 60_000;
const WINDOW_MS = 2 * HOUR_MS;

let app: AppHarness | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

function endpoint(text: string): NamedEndpoint {
  const parsed = parseEndpoint(text);
  if (typeof parsed === "string") throw new Error(parsed);
  return parsed;
}

async function sweptWith(faults: Record<string, HostingFault> = {}) {
  // Half a second past a whole one: X.509 keeps whole seconds, so what is served is 500 ms
  // short of the record, on every run.
  const clock = fakeClock(new Date(Math.floor(Date.now() / 1000) * 1000 + 500).toISOString());
  const start = clock.now().getTime();
  const inDays = (days: number) => new Date(start + days * DAY_MS);
  const certificates: SeedCertificate[] = [
    { certificateName: "www-landed", rootDomain: "www.landed.test", expiryDate: inDays(5) },
    { certificateName: "shop-landed", rootDomain: "shop.landed.test", expiryDate: inDays(12) },
  ];
  const harness = await startHarness({
    now: clock.now,
    completionDelayMs: COMPLETION_MS,
    certificates,
    hosting: { faults },
  });
  app = harness;
  const ledger: Ledger = memoryLedger();
  await harness.configure({}, { ledger, now: clock.now });
  const hosting = harness.sim.hosting as Hosting;

  await renewDueCertificates(timer(), harness.context("renewDueCertificates"));

  /** The renewal the ledger recorded as accepted, as verification takes it. */
  const accepted = async (certificateName: string): Promise<AcceptedRenewal> => {
    const id = harness.sim.certificates().find((c) => c.certificateName === certificateName)?.id;
    const record = (await ledger.read(id ?? -1))?.record;
    if (record?.outcome !== "renewal-scheduled" || record.lastRequestedAt === undefined) {
      throw new Error(`${certificateName}: no accepted renewal in the ledger`);
    }
    return { acceptedAt: record.lastRequestedAt, expiryAtRequest: record.expiryAtRequest };
  };
  const renewals = {
    www: await accepted("www-landed"),
    shop: await accepted("shop-landed"),
  };
  const settings = loadVerifySettings({
    CERTSCHED_VERIFY_CONNECT_TO: hosting.connectTo,
    CERTSCHED_HTTP_TIMEOUT: "10s",
  });
  const verify = (): Promise<VerifyResult[]> =>
    verifyTargets(
      [
        {
          endpoint: endpoint("www.landed.test"),
          certificateName: "www-landed",
          renewal: renewals.www,
        },
        {
          endpoint: endpoint("shop.landed.test"),
          certificateName: "shop-landed",
          renewal: renewals.shop,
        },
      ],
      { probes: { tls: probeTls }, settings, now: clock.now, ca: [hosting.caPem] },
    );
  return { harness, clock, start, inDays, renewals, verify };
}

const statuses = (results: readonly VerifyResult[]) =>
  Object.fromEntries(results.map((r) => [r.certificateName, r.status]));

describe("sweep -> pending -> ok / not-landed, through the simulator's hosting side", () => {
  it("is pending while the service completes the renewal, then ok with the new certificate", async () => {
    const { harness, clock, start, inDays, renewals, verify } = await sweptWith();

    expect(renewals.www).toEqual({ acceptedAt: new Date(start), expiryAtRequest: inDays(5) });
    const right = await verify();
    clock.advance(COMPLETION_MS);
    const landed = await verify();

    expect(statuses(right)).toEqual({ "www-landed": "pending", "shop-landed": "pending" });
    expect(right[0]?.servedNotAfter).toBe(
      new Date(Math.floor(inDays(5).getTime() / 1000) * 1000).toISOString(),
    );
    expect(right[0]?.detail).toContain("waiting up to 2 h (CERTSCHED_VERIFY_WINDOW)");
    expect(statuses(landed)).toEqual({ "www-landed": "ok", "shop-landed": "ok" });
    const renewed = harness.sim.certificates().find((c) => c.certificateName === "www-landed");
    expect(landed[0]?.servedNotAfter).toBe(
      renewed?.expiryDate.toISOString().replace(/\.\d{3}Z$/, ".000Z"),
    );
    expect(landed[0]?.daysLeft).toBe(89);
    expect(landed[0]?.issuer).toContain("O=certsched simulator");
    expect(harness.leaks(landed.map((r) => JSON.stringify(r)))).toEqual([]);
  });

  it("keep-old-certificate: pending until the window passes, not-landed from then on", async () => {
    const { harness, clock, start, inDays, verify } = await sweptWith({
      "www-landed": "keep-old-certificate",
    });

    clock.advance(COMPLETION_MS);
    const completed = await verify();
    clock.set(new Date(start + WINDOW_MS - 1));
    const lastPending = await verify();
    clock.set(new Date(start + WINDOW_MS));
    const late = await verify();

    // The service completed the renewal: the record has its new expiry...
    const record = harness.sim.certificates().find((c) => c.certificateName === "www-landed");
    expect(record?.expiryDate.getTime()).toBeGreaterThan(inDays(80).getTime());
    // ...but the endpoint still serves the old certificate.
    expect(statuses(completed)).toEqual({ "www-landed": "pending", "shop-landed": "ok" });
    expect(statuses(lastPending)).toEqual({ "www-landed": "pending", "shop-landed": "ok" });
    expect(statuses(late)).toEqual({ "www-landed": "not-landed", "shop-landed": "ok" });
    const notLanded = late[0];
    expect(notLanded?.detail).toBe(
      `renewal accepted at ${new Date(start).toISOString()}, more than 2 h ago (CERTSCHED_VERIFY_WINDOW), but the certificate served still expires at ${new Date(Math.floor(inDays(5).getTime() / 1000) * 1000).toISOString()}, no later than before the renewal (${inDays(5).toISOString()})`,
    );
    expect(harness.leaks(late.map((r) => JSON.stringify(r)))).toEqual([]);
  });

  it("keep-old-certificate cleared (the binding updated): the same check says ok", async () => {
    const { harness, clock, start, verify } = await sweptWith({
      "www-landed": "keep-old-certificate",
    });

    clock.set(new Date(start + WINDOW_MS));
    const before = await verify();
    harness.sim.hosting?.clearFaults("www-landed");
    const after = await verify();

    expect(before[0]?.status).toBe("not-landed");
    expect(after[0]?.status).toBe("ok");
  });

  it("wrong-name and unreachable after a sweep: mismatch and unreachable, whatever the renewal", async () => {
    const { clock, verify } = await sweptWith({
      "www-landed": "wrong-name",
      "shop-landed": "unreachable",
    });

    clock.advance(COMPLETION_MS);
    const results = await verify();

    expect(statuses(results)).toEqual({ "www-landed": "mismatch", "shop-landed": "unreachable" });
    expect(results[0]?.detail).toContain(
      "does not cover www.landed.test: it names DNS:another-site.invalid",
    );
    expect(results[1]?.detail).toMatch(
      /TLS handshake with 127\.0\.0\.1:\d+ for shop\.landed\.test failed \(ECONNRESET\)/,
    );
  });
});
