import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SINGLE_ACCOUNT_SETTINGS } from "../../../shared/app/config/accounts.js";
import type { AccountPorts } from "../../../shared/app/services.js";
import { APP_SERVICE, KEY_VAULT } from "../../../shared/core/certificate/fields.js";
import type { PreflightRecord } from "../../../shared/core/ports/inventory.js";
import { PREFLIGHT_ADVICE } from "../../../shared/core/preflight/advice.js";
import { PREFLIGHT_ALERT_PREFIX } from "../../../shared/core/preflight/changes.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import {
  PREFLIGHT_SUMMARY_PREFIX,
  preflightAndNotify,
} from "../../../shared/usecases/preflightAndNotify.js";
import { type Simulator, startSimulator } from "../../../sim/index.js";
import { collectingLogger, leaksIn, runtimeFor } from "../../support/app.js";
import { type AzuriteHandle, startAzurite } from "../../support/azurite.js";
import { seededChecks, undecidedProbes } from "../../support/preflight.js";
import { type Receiver, startReceiver } from "../../support/webhookReceiver.js";

/*
 * One account's preflight as the function app runs it, over a real inventory table (Azurite) and
 * a real webhook receiver: results stored, the changes since the stored results posted (into
 * will-fail, back to ready), the alert line under 25 days, the summary line. The checks are
 * injected through preflightWith's `checks` (the use case's seam for them): which certificate
 * fails is the test's choice; what is stored, posted and logged is the code's.
 */

const NOW = new Date();
const HOOK_SECRET = `hook-${randomBytes(16).toString("hex")}`;

let azurite: AzuriteHandle;
let sim: Simulator;
let receiver: Receiver;
let runtime: AccountPorts;

beforeAll(async () => {
  azurite = await startAzurite();
  sim = await startSimulator({
    apiKey: `api-key-${randomBytes(12).toString("hex")}`,
    clientSecret: `client-secret-${randomBytes(12).toString("hex")}`,
  });
}, 60_000);
afterAll(async () => {
  await sim?.close();
  await azurite?.stop();
});

let table = 0;
beforeEach(async () => {
  receiver = await startReceiver();
  table += 1;
  runtime = runtimeFor(
    sim,
    {
      ...Object.fromEntries(SINGLE_ACCOUNT_SETTINGS.map((name) => [name, undefined])),
      // Each case its own account (its own tables): a fresh inventory.
      AzureWebJobsStorage: azurite.connectionString,
      CERTSCHED_ACCOUNTS: JSON.stringify([
        {
          name: `acct${table}`,
          baseUrl: sim.baseUrl,
          subscription: sim.options.subscription,
          subscriptionId: sim.options.subscriptionId,
          apiKey: sim.options.apiKey,
          tenantId: sim.options.tenantId,
          clientId: sim.options.clientId,
          clientSecret: sim.options.clientSecret,
          tokenUrl: sim.tokenUrl,
        },
      ]),
      CERTSCHED_WEBHOOK_URL: `${receiver.baseUrl}/hook?sig=${HOOK_SECRET}`,
      CERTSCHED_WEBHOOK_FORMAT: "json",
    },
    { preflightProbes: undecidedProbes(), now: () => NOW },
  );
});
afterEach(async () => {
  await runtime?.close();
  await receiver?.close();
});

const inDays = (days: number) => new Date(NOW.getTime() + (days + 0.5) * DAY_MS);

/** Inventory rows as the due list leaves them, and each one's stored preflight, if any. */
async function seed(
  rows: { name: string; days: number; before?: PreflightRecord["status"] }[],
): Promise<void> {
  await runtime.inventory.upsert(
    rows.map((r) => ({
      certificateName: r.name,
      rootDomain: `${r.name}.contoso.example`,
      target: r.name.startsWith("vault") ? KEY_VAULT : APP_SERVICE,
      challengeType: r.name.startsWith("vault") ? "dns" : "http",
      cloudSubscriptionId: "sub-1",
      dnsZoneResourceGroup: "rg-dns",
      serviceExpiry: inDays(r.days),
      source: "due-list" as const,
      seenAt: NOW,
    })),
  );
  for (const r of rows.filter((r) => r.before)) {
    await runtime.inventory.recordPreflight(r.name, {
      at: new Date(NOW.getTime() - DAY_MS),
      status: r.before ?? "ready",
      rootDomain: `${r.name}.contoso.example`,
      checks:
        r.before === "will-fail"
          ? [{ check: "caa", status: "fail", reason: "caa-forbids", detail: "was forbidden" }]
          : [{ check: "caa", status: "pass", detail: "no CAA record" }],
    });
  }
}

const zoneMissing = {
  check: "dns-zone" as const,
  reason: "dns-zone-missing" as const,
  detail: "ARM answered 404 for zone vault.contoso.example in rg-dns",
};

type Message = {
  status: string;
  certificateName: string;
  from?: string;
  failures: { check: string; reason: string; advice: string }[];
};

describe("preflightAndNotify", () => {
  it("stores every result and posts what changed since the stored ones: into will-fail, back to ready", async () => {
    expect(runtime.inventory.kind).toBe("table");
    await seed([
      { name: "blog", days: 15, before: "will-fail" },
      { name: "shop", days: 15, before: "ready" },
      { name: "vault", days: 10, before: "ready" },
      { name: "www", days: 30 },
    ]);
    const { log, lines } = collectingLogger();
    const report = await preflightAndNotify(
      runtime,
      log,
      { scope: "all" },
      seededChecks({ vault: [zoneMissing] }),
    );

    expect(report.results.map((r) => [r.certificateName, r.status])).toEqual([
      ["blog", "ready"],
      ["shop", "ready"],
      ["vault", "will-fail"],
      ["www", "ready"],
    ]);
    // One message per change, in the inventory's order: blog is ready again, vault now fails.
    // shop stayed ready and www was never checked and is ready: nothing to tell.
    const messages = receiver.received.map((r) => r.json as Message);
    expect(messages.map((m) => [m.certificateName, m.status, m.from])).toEqual([
      ["blog", "ready", "will-fail"],
      ["vault", "will-fail", "ready"],
    ]);
    expect(messages[1]?.failures).toEqual([
      {
        check: "dns-zone",
        reason: "dns-zone-missing",
        detail: zoneMissing.detail,
        advice: PREFLIGHT_ADVICE["dns-zone-missing"],
      },
    ]);
    // Stored: the sweep and GET /api/preflight read these.
    const vault = await runtime.inventory.get("vault");
    expect(vault?.lastPreflight).toMatchObject({ status: "will-fail", at: NOW });
    expect((await runtime.inventory.get("blog"))?.lastPreflight?.status).toBe("ready");
    // The alert line (10 days left), and the summary line.
    const text = lines.map((l) => `${l.level} ${l.message}`);
    expect(text).toContainEqual(
      `error ${PREFLIGHT_ALERT_PREFIX}certificate "vault" of account "acct${table}" will fail to renew (dns-zone-missing) with 10 days left`,
    );
    expect(text).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^info ${PREFLIGHT_SUMMARY_PREFIX} \\(account acct${table}\\): 4 certificate\\(s\\) checked .*ready 3, will-fail 1, unknown 0; 2 change\\(s\\) to tell$`,
        ),
      ),
    );
    expect(leaksIn(sim, [...text, ...receiver.received.map((r) => r.body)], [HOOK_SECRET])).toEqual(
      [],
    );
  });

  it("tells a change once: the next run, still failing, posts nothing", async () => {
    await seed([{ name: "vault", days: 10 }]);
    const checks = seededChecks({ vault: [zoneMissing] });
    const { log } = collectingLogger();
    await preflightAndNotify(runtime, log, { scope: "all" }, checks);
    expect(receiver.received).toHaveLength(1);
    await preflightAndNotify(runtime, log, { scope: "all" }, checks);
    expect(receiver.received).toHaveLength(1);
  });

  it("the timer's scope: only certificates within CERTSCHED_PREFLIGHT_DAYS (30) of the 20-day window", async () => {
    await seed([
      { name: "near", days: 49 },
      { name: "far", days: 51 },
    ]);
    const { log } = collectingLogger();
    const report = await preflightAndNotify(runtime, log, { scope: "window" }, seededChecks());
    expect(report.results.map((r) => r.certificateName)).toEqual(["near"]);
    expect((await runtime.inventory.get("far"))?.lastPreflight).toBeUndefined();
  });

  it("a webhook that refuses is a warning; the results are stored and returned all the same", async () => {
    receiver.answer({ status: 500, body: "no" });
    await seed([{ name: "vault", days: 10 }]);
    const { log, lines } = collectingLogger();
    const report = await preflightAndNotify(
      runtime,
      log,
      { scope: "all" },
      seededChecks({ vault: [zoneMissing] }),
    );
    expect(report.counts["will-fail"]).toBe(1);
    expect((await runtime.inventory.get("vault"))?.lastPreflight?.status).toBe("will-fail");
    const warned = lines.filter((l) => l.level === "warn").map((l) => l.message);
    expect(warned).toContainEqual(
      expect.stringContaining(
        "certsched webhook notification failed (json), the preflight is unaffected: the webhook answered 500",
      ),
    );
    expect(warned.join("\n")).not.toContain(HOOK_SECRET);
  });

  it("names what was asked for and is not in the inventory", async () => {
    await seed([{ name: "www", days: 10 }]);
    const { log, lines } = collectingLogger();
    const report = await preflightAndNotify(
      runtime,
      log,
      { scope: "all", names: ["www", "nope"] },
      seededChecks(),
    );
    expect(report.notFound).toEqual(["nope"]);
    expect(lines.map((l) => l.message)).toContainEqual(
      `certsched preflight (account acct${table}): not in the inventory: "nope"`,
    );
  });
});
