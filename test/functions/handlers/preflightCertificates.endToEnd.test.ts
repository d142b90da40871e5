import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPreflight } from "../../../functions/getPreflight.js";
import { preflightCertificates } from "../../../functions/preflightCertificates.js";
import { renewCertificate } from "../../../functions/renewCertificate.js";
import { renewDueCertificates } from "../../../functions/renewDueCertificates.js";
import { getServices } from "../../../shared/app/services.js";
import { fromServiceRecord } from "../../../shared/core/inventory/fromRecords.js";
import { configureApp, releaseApp } from "../../support/app.js";
import { type AzuriteHandle, startAzurite } from "../../support/azurite.js";
import { httpRequest, invocationContext, timer } from "../../support/invoke.js";
import {
  appServiceSeed,
  type PreflightWorld,
  startPreflightWorld,
} from "../../support/preflightWorld.js";
import { toReply } from "../../support/reply.js";
import { type Receiver, startReceiver } from "../../support/webhookReceiver.js";

/**
 * The whole preflight story through the function app's own handlers, with the real
 * checks over the simulator's DNS, ARM and apps, Azurite for storage and a real webhook
 * receiver: the daily timer finds the CAA record that will make a renewal fail, tells the
 * webhook and writes the alert line; GET /api/preflight shows it; the next sweep does not spend a
 * request on it (blocked) while it renews the other; a renewal by name is refused 409 until
 * forced.
 */

const BLOCKED = "caa-web";
const FINE = "ok-web";

let world: PreflightWorld;
let azurite: AzuriteHandle;
let receiver: Receiver;
const logs: string[] = [];
const context = (name: string) => invocationContext(name, (_level, message) => logs.push(message));

beforeAll(async () => {
  world = await startPreflightWorld([
    appServiceSeed(BLOCKED, "shop.contoso.com", 12),
    appServiceSeed(FINE, "www.contoso.com", 12),
  ]);
  world.dns.set("shop.contoso.com", [
    { type: "CAA", flags: 0, tag: "issue", value: "digicert.com" },
  ]);
  azurite = await startAzurite();
  receiver = await startReceiver();
  await configureApp({
    ...world.env,
    AzureWebJobsStorage: azurite.connectionString,
    CERTSCHED_WEBHOOK_URL: receiver.baseUrl,
    CERTSCHED_WEBHOOK_FORMAT: "json",
  });
  // What an earlier sweep remembered: the due list's records in the inventory.
  const runtime = getServices().forAccount();
  const due = await runtime.client.listDue();
  await runtime.inventory.upsert(
    due.certificates.map((r) => fromServiceRecord(r, "due-list", new Date())),
  );
  world.sim.reset();
}, 120_000);

afterAll(async () => {
  await releaseApp();
  await receiver?.close();
  await azurite?.stop();
  await world?.close();
});

describe("preflight, then the sweep", () => {
  it("the timer finds the CAA record, tells the webhook once and writes the alert line", async () => {
    await preflightCertificates(timer(), context("preflightCertificates"));

    const messages = receiver.received.map((r) => r.json as Record<string, unknown>);
    expect(messages).toEqual([
      expect.objectContaining({
        event: "preflight",
        status: "will-fail",
        certificateName: BLOCKED,
        domain: "shop.contoso.com",
        failures: [expect.objectContaining({ check: "caa", reason: "caa-forbids" })],
      }),
    ]);
    expect(logs).toContainEqual(
      expect.stringMatching(
        /^certsched preflight alert: certificate "caa-web" of account "default" will fail to renew \(caa-forbids\) with 1[12] days left$/,
      ),
    );
    // A second run has nothing new to tell.
    await preflightCertificates(timer(), context("preflightCertificates"));
    expect(receiver.received).toHaveLength(1);
  });

  it("GET /api/preflight shows what it found", async () => {
    const reply = toReply(
      await getPreflight(httpRequest({ path: "preflight" }), context("getPreflight")),
    );
    expect(reply.status).toBe(200);
    const doc = reply.body as { results: { certificateName: string; status: string }[] };
    expect(doc.results.map((r) => [r.certificateName, r.status]).sort()).toEqual([
      [BLOCKED, "will-fail"],
      [FINE, "ready"],
    ]);
  });

  it("the sweep renews the other and spends no request on the blocked one", async () => {
    await expect(renewDueCertificates(timer(), context("renewDueCertificates"))).rejects.toThrow(
      /blocked/,
    );
    const renewed = world.sim.requests.filter((r) => r.operation.toLowerCase().includes("renew"));
    expect(renewed.map((r) => r.body + r.path).join("\n")).toContain(FINE);
    expect(renewed.map((r) => r.body + r.path).join("\n")).not.toContain(BLOCKED);
    expect(logs.join("\n")).toContain(`blocked (preflight: caa-forbids)`);
  });

  it("a renewal by name is refused until forced", async () => {
    const renew = async (query: Record<string, string>) =>
      toReply(
        await renewCertificate(
          httpRequest({
            method: "POST",
            path: `certificates/${BLOCKED}/renew`,
            params: { name: BLOCKED },
            query,
          }),
          context("renewCertificate"),
        ),
      );
    expect((await renew({})).status).toBe(409);
    expect((await renew({ force: "true" })).status).toBe(202);
  });

  it("never shows a token or a credential", () => {
    const texts = [...logs, ...receiver.received.map((r) => r.body)].join("\n");
    for (const secret of world.secrets()) expect(texts).not.toContain(secret);
  });
});
