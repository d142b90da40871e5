import { describe, expect, it } from "vitest";
import {
  type InventoryUpdate,
  memoryInventory,
  noInventory,
} from "../../../shared/core/ports/inventory.js";
import type { PreflightProbes } from "../../../shared/core/ports/preflightProbes.js";
import type { DueList } from "../../../shared/core/ports/service.js";
import type { PreflightCheckName } from "../../../shared/core/preflight/preflight.js";
import type { PreflightSettings } from "../../../shared/core/preflight/preflightSettings.js";
import type { CheckSubject } from "../../../shared/core/preflight/subject.js";
import type { Logger } from "../../../shared/lib/log.js";
import { type PreflightPorts, runPreflight } from "../../../shared/usecases/preflight.js";
import type {
  CheckOutcome,
  PreflightCheckFunctions,
} from "../../../shared/usecases/preflightChecks/checkTypes.js";

const NOW = new Date("2026-11-20T06:00:00Z");
const DAY = 86_400_000;

const settings: PreflightSettings = {
  armUrl: "https://arm.test",
  dnsServers: [],
  caIdentifiers: ["letsencrypt.org"],
  days: 30,
  timeoutMs: 1_000,
  connectTo: [],
};

const probes = {} as PreflightProbes;

/** Check functions whose verdict per certificate a test sets: the use case's own logic is tested. */
function fakeChecks(verdicts: Record<string, Partial<Record<PreflightCheckName, CheckOutcome>>>) {
  const calls: string[] = [];
  const of = (check: PreflightCheckName) => async (subject: CheckSubject) => {
    calls.push(`${check}:${subject.certificateName}`);
    const set = verdicts[subject.certificateName]?.[check];
    if (set) return set;
    return { check: { check, status: "pass" as const, detail: `${check} ok` }, armAnswered: true };
  };
  const checks: PreflightCheckFunctions = {
    caa: of("caa"),
    dnsZone: async (subject) => {
      const outcome = await of("dns-zone")(subject);
      return outcome.check.status === "pass"
        ? { ...outcome, zone: { name: "contoso.com", nameServers: ["ns1.test"] } }
        : outcome;
    },
    delegation: (subject) => of("dns-delegation")(subject),
    appBinding: of("app-binding"),
    httpChallenge: of("http-challenge"),
    access: (outcomes) => {
      const refused = outcomes.find((o) => o.refused);
      return refused
        ? {
            check: {
              check: "access",
              status: "fail",
              reason: refused.refused?.status === 401 ? "credentials-refused" : "role-missing",
              detail: refused.refused?.detail ?? "",
            },
          }
        : { check: { check: "access", status: "pass", detail: "ARM answered" } };
    },
  };
  return { checks, calls };
}

function recorder(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(`info ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    error: (m) => lines.push(`error ${m}`),
  };
}

const row = (name: string, more: Partial<InventoryUpdate> = {}): InventoryUpdate => ({
  certificateName: name,
  source: "created",
  seenAt: NOW,
  rootDomain: `${name}.contoso.com`,
  target: "Cloud App Service",
  challengeType: "http",
  cloudSubscriptionId: "sub",
  ...more,
});

function ports(more: Partial<PreflightPorts>): PreflightPorts {
  return {
    account: "default",
    inventory: memoryInventory(),
    listDue: async (): Promise<DueList> => ({ certificates: [], rejected: [] }),
    probes: async () => probes,
    settings,
    checks: fakeChecks({}).checks,
    now: () => NOW,
    log: recorder(),
    ...more,
  };
}

describe("preflight of one account", () => {
  it("checks every certificate of the inventory with the checks that apply, and keeps the results", async () => {
    const inventory = memoryInventory();
    await inventory.upsert([
      row("shop"),
      row("vault", {
        target: "Cloud Key Vault + DNS",
        challengeType: "dns",
        dnsZoneResourceGroup: "rg",
      }),
      { certificateName: "watch:a.test:443", source: "watch", seenAt: NOW },
    ]);
    const { checks, calls } = fakeChecks({
      shop: {
        caa: { check: { check: "caa", status: "fail", reason: "caa-forbids", detail: "no" } },
      },
    });
    const report = await runPreflight(ports({ inventory, checks }), { scope: "all" });
    expect(report.source).toBe("inventory");
    expect(
      report.results.map((r) => [r.certificateName, r.status, r.checks.map((c) => c.check)]),
    ).toEqual([
      ["shop", "will-fail", ["caa", "app-binding", "http-challenge", "access"]],
      ["vault", "ready", ["caa", "dns-zone", "dns-delegation", "access"]],
    ]);
    expect(report.counts).toEqual({ ready: 1, "will-fail": 1, unknown: 0 });
    expect(calls.sort()).toEqual(
      [
        "caa:shop",
        "app-binding:shop",
        "http-challenge:shop",
        "caa:vault",
        "dns-zone:vault",
        "dns-delegation:vault",
      ].sort(),
    );
    expect((await inventory.get("shop"))?.lastPreflight).toMatchObject({
      status: "will-fail",
      at: NOW,
    });
    expect((await inventory.get("vault"))?.lastPreflight?.status).toBe("ready");
  });

  it("checks the delegation only once the zone was found", async () => {
    const inventory = memoryInventory();
    await inventory.upsert([row("v", { challengeType: "dns", dnsZoneResourceGroup: "rg" })]);
    const { checks, calls } = fakeChecks({
      v: {
        "dns-zone": {
          check: { check: "dns-zone", status: "fail", reason: "dns-zone-missing", detail: "404" },
        },
      },
    });
    const report = await runPreflight(ports({ inventory, checks }), { scope: "all" });
    expect(report.results[0]?.checks.map((c) => c.check)).toEqual([
      "caa",
      "dns-zone",
      "app-binding",
      "access",
    ]);
    expect(calls).not.toContain("dns-delegation:v");
  });

  it("makes a check that throws `unknown` and goes on with the others", async () => {
    const inventory = memoryInventory();
    await inventory.upsert([row("a"), row("b")]);
    const { checks } = fakeChecks({});
    const throwing: PreflightCheckFunctions = {
      ...checks,
      caa: async (subject) => {
        if (subject.certificateName === "a") throw new Error("resolver\nexploded");
        return checks.caa(subject, {} as never);
      },
    };
    const report = await runPreflight(ports({ inventory, checks: throwing }), { scope: "all" });
    expect(report.results.map((r) => r.status)).toEqual(["unknown", "ready"]);
    expect(report.results[0]?.checks[0]).toEqual({
      check: "caa",
      status: "unknown",
      detail: "could not check: resolver\\u{0a}exploded",
    });
  });

  it("cannot check a certificate without a domain: unknown, said why", async () => {
    const inventory = memoryInventory();
    await inventory.upsert([row("nodomain", { rootDomain: undefined })]);
    const report = await runPreflight(ports({ inventory }), { scope: "all" });
    expect(report.results[0]).toMatchObject({ rootDomain: null, status: "unknown" });
    expect(report.results[0]?.checks[0]?.detail).toMatch(/names no rootDomain/);
  });

  it("checks only the named certificates and names those it does not hold", async () => {
    const inventory = memoryInventory();
    await inventory.upsert([row("a"), row("b")]);
    const report = await runPreflight(ports({ inventory }), { scope: "all", names: ["b", "zz"] });
    expect(report.results.map((r) => r.certificateName)).toEqual(["b"]);
    expect(report.notFound).toEqual(["zz"]);
  });

  it("the timer's scope: within CERTSCHED_PREFLIGHT_DAYS of the 20-day window, or in it", async () => {
    const inventory = memoryInventory();
    const expiring = (days: number) => new Date(NOW.getTime() + days * DAY);
    await inventory.upsert([
      row("in-window", { serviceExpiry: expiring(10) }),
      row("edge", { serviceExpiry: expiring(50) }),
      row("later", { serviceExpiry: new Date(expiring(50).getTime() + 1) }),
      row("unknown-expiry"),
    ]);
    const report = await runPreflight(ports({ inventory }), { scope: "window" });
    expect(report.results.map((r) => r.certificateName)).toEqual([
      "edge",
      "in-window",
      "unknown-expiry",
    ]);
  });

  it("without storage checks the due list, and keeps nothing", async () => {
    const record = {
      certificateName: "due-one",
      id: 1,
      subscriptionId: 1,
      target: "Cloud Key Vault + DNS",
      renewal: "Auto",
      expiryDate: NOW,
      rootDomain: "due.contoso.com",
      keyVaultName: "kv",
      keyVaultCertificateName: null,
      challengeType: "dns",
      cloudSubscriptionId: "s",
      dnsZoneResourceGroup: "rg",
    };
    const report = await runPreflight(
      ports({
        inventory: noInventory,
        listDue: async () => ({ certificates: [record], rejected: [] }),
      }),
      { scope: "all" },
    );
    expect(report.source).toBe("due-list");
    expect(report.results.map((r) => [r.certificateName, r.status])).toEqual([
      ["due-one", "ready"],
    ]);
    expect(report.unstored).toBe(false);
  });

  it("builds no probes when there is nothing to check", async () => {
    let built = 0;
    const report = await runPreflight(
      ports({
        probes: async () => {
          built += 1;
          return probes;
        },
      }),
      { scope: "all" },
    );
    expect(report.results).toEqual([]);
    expect(built).toBe(0);
  });

  it("tells what changed since the stored result, and writes the alert line under 25 days", async () => {
    const inventory = memoryInventory();
    await inventory.upsert([
      row("now-failing", { serviceExpiry: new Date(NOW.getTime() + 24 * DAY) }),
      row("far", { serviceExpiry: new Date(NOW.getTime() + 40 * DAY) }),
      row("recovered"),
      row("still-failing", { serviceExpiry: new Date(NOW.getTime() + 3 * DAY) }),
    ]);
    const failing = {
      check: {
        check: "caa" as const,
        status: "fail" as const,
        reason: "caa-forbids" as const,
        detail: "CAA",
      },
    };
    const earlier = { at: new Date(NOW.getTime() - DAY), rootDomain: null, checks: [] };
    await inventory.recordPreflight("recovered", { ...earlier, status: "will-fail" });
    await inventory.recordPreflight("still-failing", { ...earlier, status: "will-fail" });
    await inventory.recordPreflight("now-failing", { ...earlier, status: "ready" });
    const { checks } = fakeChecks({
      "now-failing": { caa: failing },
      far: { caa: failing },
      "still-failing": { caa: failing },
    });
    const log = recorder();
    const report = await runPreflight(ports({ inventory, checks, log }), { scope: "all" });
    expect(report.changes.map((c) => [c.certificateName, c.kind, c.from])).toEqual([
      ["far", "will-fail", undefined],
      ["now-failing", "will-fail", "ready"],
      ["recovered", "ready", "will-fail"],
    ]);
    const alerts = log.lines.filter((l) => l.startsWith("error certsched preflight alert: "));
    expect(alerts).toEqual([
      'error certsched preflight alert: certificate "now-failing" of account "default" will fail to renew (caa-forbids) with 24 days left',
      'error certsched preflight alert: certificate "still-failing" of account "default" will fail to renew (caa-forbids) with 3 days left',
    ]);
    expect(log.lines).toContain('warn certsched preflight: "far" will fail to renew (caa-forbids)');
  });

  it("says so when the results cannot be stored, and still reports them", async () => {
    const inventory = memoryInventory();
    await inventory.upsert([row("a")]);
    const log = recorder();
    const report = await runPreflight(
      ports({
        inventory: {
          ...inventory,
          recordPreflight: async () => {
            throw new Error("table down");
          },
        },
        log,
      }),
      { scope: "all" },
    );
    expect(report.results).toHaveLength(1);
    expect(report.unstored).toBe(true);
    expect(log.lines.some((l) => /could not be stored.*table down/.test(l))).toBe(true);
  });
});
