import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { renewCertificate } from "../../../functions/renewCertificate.js";
import { renewDueCertificates } from "../../../functions/renewDueCertificates.js";
import { tableLedger } from "../../../shared/adapters/storage/tableLedger.js";
import type { Ledger } from "../../../shared/core/ports/ledger.js";
import { CertschedError, SweepFailedError } from "../../../shared/lib/errors.js";
import { DAY_MS, HOUR_MS } from "../../../shared/lib/time.js";
import { SAMPLE_REFUSAL, type SeedCertificate } from "../../../sim/index.js";
import { type AppHarness, startHarness, uniqueTableName } from "../../support/app.js";
import { httpRequest, timer } from "../../support/invoke.js";

const inDays = (days: number) => new Date(Date.now() + (days + 0.5) * DAY_MS);
const REFUSAL = SAMPLE_REFUSAL;

let app: AppHarness;
let ledger: Ledger;

async function start(certificates: SeedCertificate[], settings: Record<string, string> = {}) {
  app = await startHarness({ completionDelayMs: 30 * 60_000, certificates });
  ledger = tableLedger({
    connectionString: inject("azuriteTableConnectionString"),
    tableName: uniqueTableName("timer"),
  });
  await ledger.open();
  await app.configure(settings, { ledger });
}

afterEach(async () => {
  expect(app.leaks()).toEqual([]);
  await app.close();
});

function sweep(isPastDue = false): Promise<void> {
  return renewDueCertificates(timer(isPastDue), app.context("renewDueCertificates"));
}

/** The one summary line of the last sweep, parsed. */
function summaryLine() {
  const line = app.logs.findLast((l) => l.message.startsWith("certsched sweep summary "));
  if (!line) throw new Error("no summary line was logged");
  return {
    level: line.level,
    ...(JSON.parse(line.message.slice("certsched sweep summary ".length)) as {
      failed: boolean;
      ledger: string;
      counts: Record<string, number>;
      certificates: { name: string; outcome: string }[];
    }),
  };
}

describe("renewDueCertificates (timer)", () => {
  describe("with due, not-due, refused and already-pending certificates", () => {
    beforeEach(async () => {
      await start([
        { certificateName: "www-contoso-com", expiryDate: inDays(5) },
        { certificateName: "intranet-contoso-com", expiryDate: inDays(8), refuseRenewal: REFUSAL },
        {
          certificateName: "vault-fabrikam-com",
          target: "Cloud Key Vault + DNS",
          keyVaultName: "kv-fabrikam",
          expiryDate: inDays(2),
        },
        { certificateName: "shop-contoso-com", expiryDate: inDays(12) },
        { certificateName: "blog-contoso-com", expiryDate: inDays(45) },
      ]);
      // shop was renewed just now (v3, by an operator), through the app's own HTTP route.
      const renewed = await app.call(
        renewCertificate,
        httpRequest({
          path: "certificates/shop-contoso-com/renew",
          params: { name: "shop-contoso-com" },
        }),
      );
      expect(renewed.status).toBe(202);
      // No row written here: the manual renewal's own path recorded it in the ledger.
      const shop = app.sim.certificates().find((c) => c.certificateName === "shop-contoso-com");
      expect((await ledger.read(shop?.id ?? 0))?.record).toMatchObject({
        certificateName: "shop-contoso-com",
        outcome: "renewal-scheduled",
        attempts: 1,
        reason: "ManualRequest",
      });
      app.sim.reset();
    });

    it("renews the others, skips the pending one, and fails the run naming the refusal", async () => {
      const error = await sweep().catch((e: unknown) => e);

      expect(error).toBeInstanceOf(SweepFailedError);
      expect(error).toBeInstanceOf(CertschedError);
      expect(error).toMatchObject({
        code: "SWEEP_FAILED",
        problems: ["1 renewal(s) failed: intranet-contoso-com"],
      });
      expect((error as Error).message).toBe(
        "certsched renewal sweep failed: 1 renewal(s) failed: intranet-contoso-com",
      );
      expect(app.sim.renewCallsFor("www-contoso-com")).toBe(1);
      expect(app.sim.renewCallsFor("vault-fabrikam-com")).toBe(1);
      expect(app.sim.renewCallsFor("shop-contoso-com")).toBe(1); // the operator's, no more
      expect(app.sim.renewCallsFor("blog-contoso-com")).toBe(0);
      const summary = summaryLine();
      expect(summary.level).toBe("error");
      // Most urgent first: fewest days left.
      expect(summary.certificates).toEqual([
        { name: "vault-fabrikam-com", daysLeft: 2, outcome: "renewal-scheduled" },
        { name: "www-contoso-com", daysLeft: 5, outcome: "renewal-scheduled" },
        { name: "intranet-contoso-com", daysLeft: 8, outcome: "failed" },
        { name: "shop-contoso-com", daysLeft: 12, outcome: "skipped" },
      ]);
      const refusal = app.logs.find((l) => l.message.includes("certificate failed: intranet"));
      expect(refusal?.level).toBe("error");
      expect(refusal?.message).toContain("DNS zone 'contoso-dns' not found");
    });

    it("one failing certificate never stops the others, even one at a time", async () => {
      await app.configure({ CERTSCHED_RENEWAL_CONCURRENCY: "1" }, { ledger });
      // The first renewal on the wire fails in a second way: our credentials refused, and
      // refused again when retried once with fresh tokens.
      app.sim.inject("publicRenew", { status: 401, body: "Authorization failed", times: 2 });

      await expect(sweep()).rejects.toThrow("2 renewal(s) failed");

      const outcomes = summaryLine().certificates.map((c) => c.outcome);
      // The first on the wire is the most urgent, vault-fabrikam-com (2 days left).
      expect(outcomes).toEqual(["failed", "renewal-scheduled", "failed", "skipped"]);
      expect(app.sim.requestsFor("publicRenew")).toHaveLength(4);
      expect(app.sim.renewCallsFor("vault-fabrikam-com")).toBe(0);
      expect(app.sim.renewCallsFor("www-contoso-com")).toBe(1);
    });

    it("warns when the run is late", async () => {
      const from = app.logs.length;

      await sweep(true).catch(() => undefined);

      expect(app.logs[from]).toMatchObject({
        level: "warning",
        functionName: "renewDueCertificates",
        message: expect.stringMatching(/past due/),
      });
    });
  });

  it("resolves when every due certificate was scheduled", async () => {
    await start([
      { certificateName: "www-contoso-com", expiryDate: inDays(5) },
      { certificateName: "api-contoso-com", expiryDate: inDays(19) },
    ]);

    await expect(sweep()).resolves.toBeUndefined();

    expect(summaryLine()).toMatchObject({ level: "information", failed: false, ledger: "table" });
    expect(app.sim.renewCallsFor("www-contoso-com")).toBe(1);
    expect(app.sim.renewCallsFor("api-contoso-com")).toBe(1);
  });

  it("resolves when nothing is due (the list's 404)", async () => {
    await start([{ certificateName: "blog-contoso-com", expiryDate: inDays(45) }]);

    await expect(sweep()).resolves.toBeUndefined();

    expect(summaryLine().counts.due).toBe(0);
  });

  it("rejects when the list itself fails, naming the list and its status", async () => {
    await start([{ certificateName: "www-contoso-com", expiryDate: inDays(5) }]);
    // Refused again when retried once with fresh tokens.
    app.sim.inject("list", {
      status: 401,
      body: "Authorization failed: subscription suspended",
      times: 2,
    });

    const error = await sweep().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(SweepFailedError);
    expect((error as Error).message).toMatch(
      /list certificates due for renewal failed: the service answered 401.*subscription suspended/,
    );
    expect(app.sim.requestsFor("publicRenew")).toEqual([]);
  });

  it("rejects when a certificate is stuck, after asking for it again", async () => {
    await start([{ certificateName: "www-contoso-com", expiryDate: inDays(5) }]);
    const [cert] = app.sim.certificates();
    if (!cert) throw new Error("no certificate");
    const dayAndAnHourAgo = new Date(Date.now() - DAY_MS - HOUR_MS);
    await ledger.write(
      {
        id: cert.id,
        certificateName: cert.certificateName,
        expiryAtRequest: cert.expiryDate,
        firstRequestedAt: dayAndAnHourAgo,
        lastRequestedAt: dayAndAnHourAgo,
        outcome: "renewal-scheduled",
        attempts: 1,
        detail: undefined,
      },
      undefined,
    );

    await expect(sweep()).rejects.toThrow(
      "certsched renewal sweep failed: 1 certificate(s) stuck: www-contoso-com",
    );

    expect(app.sim.renewCallsFor("www-contoso-com")).toBe(1);
    const stuck = app.logs.find((l) => l.message.startsWith("certsched certificate stuck:"));
    expect(stuck?.level).toBe("error");
    expect(stuck?.message).toMatch(/still due 25\.0 h after renewal was first requested/);
  });
});
