import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSettings } from "../../../shared/app/config/settings.js";
import { createServices, type Services } from "../../../shared/app/services.js";
import { type InventoryUpdate, memoryInventory } from "../../../shared/core/ports/inventory.js";
import type { PreflightResult } from "../../../shared/core/preflight/preflight.js";
import type { Logger } from "../../../shared/lib/log.js";
import { preflightWith } from "../../../shared/usecases/preflight.js";
import {
  appServiceSeed,
  keyVaultSeed,
  type PreflightWorld,
  startPreflightWorld,
  WORLD_SUBSCRIPTION,
} from "../../support/preflightWorld.js";

/**
 * Preflight end to end: the composition's real probes (DNS through node:dns, ARM
 * through Azure's SDKs over TLS, the HTTP challenge through undici) against the simulator's DNS
 * server, ARM and challenge listener, one staged cause per certificate.
 */

const lines: string[] = [];
const log: Logger = {
  info: (m) => lines.push(m),
  warn: (m) => lines.push(m),
  error: (m) => lines.push(m),
};

let world: PreflightWorld;
let services: Services;

const SEEDS = [
  appServiceSeed("ready-web", "www.contoso.com"),
  appServiceSeed("caa-web", "shop.contoso.com"),
  keyVaultSeed("vault-ready", "api.contoso.com"),
  keyVaultSeed("zone-missing", "intranet.fabrikam.com", 10, "rg-gone"),
  { ...keyVaultSeed("not-delegated", "mail.northwind.com"), dnsZoneResourceGroup: "rg-nw" },
  appServiceSeed("unbound-web", "old.contoso.com"),
  appServiceSeed("closed-web", "closed.contoso.com"),
  appServiceSeed("forbidden-web", "blocked.tailspin.com"),
];

function byName(results: readonly PreflightResult[], name: string) {
  const found = results.find((r) => r.certificateName === name);
  if (!found) throw new Error(`no result for ${name}`);
  return {
    status: found.status,
    checks: Object.fromEntries(found.checks.map((c) => [c.check, [c.status, c.reason ?? null]])),
    detail: (check: string) => found.checks.find((c) => c.check === check)?.detail ?? "",
  };
}

beforeAll(async () => {
  world = await startPreflightWorld(SEEDS);
  // One cause per certificate.
  world.dns.set("shop.contoso.com", [
    { type: "CAA", flags: 0, tag: "issue", value: "digicert.com" },
  ]);
  world.dns.set("northwind.com", [{ type: "NS", host: "ns1.registrar-parking.example." }]);
  world.arm.removeZone(WORLD_SUBSCRIPTION, "rg-gone", "fabrikam.com");
  world.arm.removeSite(WORLD_SUBSCRIPTION, "rg-web", "unbound-web-app");
  world.sim.hosting?.challenge.behave("closed.contoso.com", "refuse");
  world.arm.setFault(`/subscriptions/${WORLD_SUBSCRIPTION}/providers/Microsoft.Web/sites`, 403);
  services = createServices(loadSettings(world.env));
}, 60_000);

afterAll(async () => {
  await services?.close();
  await world?.close();
});

describe("preflight over the simulator's DNS, ARM and apps (no storage: the due list)", () => {
  let results: readonly PreflightResult[];
  let forbidden: readonly PreflightResult[];

  beforeAll(async () => {
    const report = await preflightWith(services.forAccount(), log, { scope: "all" });
    expect(report.source).toBe("due-list");
    results = report.results;
    // The 403 on the subscription's sites hides every unbound site: look at those apart.
    forbidden = results.filter((r) => r.checks.some((c) => c.reason === "role-missing"));
    world.arm.clearFaults();
  }, 60_000);

  it("finds a Key Vault certificate ready: no CAA, its zone in ARM and delegated", () => {
    expect(byName(results, "vault-ready")).toMatchObject({
      status: "ready",
      checks: {
        caa: ["pass", null],
        "dns-zone": ["pass", null],
        "dns-delegation": ["pass", null],
        access: ["pass", null],
      },
    });
  });

  it("finds a CAA record that allows another CA: caa-forbids", () => {
    const r = byName(results, "caa-web");
    expect(r.status).toBe("will-fail");
    expect(r.checks.caa).toEqual(["fail", "caa-forbids"]);
    expect(r.detail("caa")).toMatch(/shop\.contoso\.com.*digicert\.com/);
  });

  it("finds no zone in the resource group the certificate names: dns-zone-missing, no delegation check", () => {
    const r = byName(results, "zone-missing");
    expect(r.checks["dns-zone"]).toEqual(["fail", "dns-zone-missing"]);
    expect(r.checks["dns-delegation"]).toBeUndefined();
    expect(r.detail("dns-zone")).toMatch(/rg-gone/);
  });

  it("finds the public NS pointing elsewhere: dns-not-delegated", () => {
    const r = byName(results, "not-delegated");
    expect(r.checks["dns-zone"]).toEqual(["pass", null]);
    expect(r.checks["dns-delegation"]).toEqual(["fail", "dns-not-delegated"]);
  });

  it("finds an app that refuses port 80: http-challenge-unreachable", () => {
    expect(byName(results, "closed-web").checks["http-challenge"]).toEqual([
      "fail",
      "http-challenge-unreachable",
    ]);
  });

  it("reports a 403 from ARM as role-missing, and the check it hid as unknown", () => {
    // Every App Service certificate from the due list needs the subscription's list of sites.
    expect(forbidden.map((r) => r.certificateName).sort()).toEqual(
      ["caa-web", "closed-web", "forbidden-web", "ready-web", "unbound-web"].sort(),
    );
    const r = byName(results, "forbidden-web");
    expect(r.status).toBe("will-fail");
    expect(r.checks["app-binding"]).toEqual(["unknown", null]);
    expect(r.checks.access).toEqual(["fail", "role-missing"]);
  });

  it("runs every check that applies, in the contract's order, also when one fails", () => {
    const closed = results.find((r) => r.certificateName === "closed-web");
    expect(closed?.checks.map((c) => c.check)).toEqual([
      "caa",
      "app-binding",
      "http-challenge",
      "access",
    ]);
  });

  it("never shows a token or a credential", () => {
    const text = JSON.stringify(results) + lines.join("\n");
    for (const secret of world.secrets()) expect(text).not.toContain(secret);
  });
});

describe("once ARM lets certsched read the sites", () => {
  it("finds the bound App Service certificate ready and the unbound one hostname-not-bound", async () => {
    const report = await preflightWith(services.forAccount(), log, {
      scope: "all",
      names: ["ready-web", "unbound-web"],
    });
    expect(byName(report.results, "ready-web")).toMatchObject({
      status: "ready",
      checks: {
        "app-binding": ["pass", null],
        "http-challenge": ["pass", null],
        access: ["pass", null],
      },
    });
    expect(byName(report.results, "unbound-web").checks["app-binding"]).toEqual([
      "fail",
      "hostname-not-bound",
    ]);
  });

  it("answers unknown within seconds when the DNS server stays silent", async () => {
    world.dns.mode("*", "silent");
    const started = Date.now();
    try {
      const report = await preflightWith(services.forAccount(), log, {
        scope: "all",
        names: ["vault-ready"],
      });
      expect(byName(report.results, "vault-ready")).toMatchObject({
        status: "unknown",
        checks: { caa: ["unknown", null], "dns-delegation": ["unknown", null] },
      });
    } finally {
      world.dns.mode("*", "answer");
    }
    // CERTSCHED_PREFLIGHT_TIMEOUT is 1 s here; not the resolver's own ~20 s.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe("the app certsched created (from the inventory)", () => {
  const site = (name: string, slot = ""): InventoryUpdate => ({
    certificateName: name,
    source: "created",
    seenAt: new Date(),
    rootDomain: "www.contoso.com",
    target: "Cloud App Service",
    challengeType: "dns",
    cloudSubscriptionId: WORLD_SUBSCRIPTION,
    dnsZoneResourceGroup: "rg-dns",
    appServiceResourceGroup: "rg-web",
    appServiceName: "shop-site",
    appServiceSlot: slot,
  });

  it("checks the app's own bindings: the slot's, app-missing when it is gone", async () => {
    world.arm.addSite({
      subscriptionId: WORLD_SUBSCRIPTION,
      resourceGroup: "rg-web",
      name: "shop-site",
      hostNames: ["shop-site.contoso.com"],
      slots: [{ name: "staging", hostNames: ["www.contoso.com"] }],
    });
    const inventory = memoryInventory();
    await inventory.upsert([
      site("in-slot", "staging"),
      site("not-in-production"),
      { ...site("app-gone"), appServiceName: "deleted-site" },
    ]);
    const withInventory = createServices(loadSettings(world.env), { inventory });
    try {
      const report = await preflightWith(withInventory.forAccount(), log, { scope: "all" });
      expect(report.source).toBe("inventory");
      expect(byName(report.results, "in-slot").checks["app-binding"]).toEqual(["pass", null]);
      expect(byName(report.results, "not-in-production").checks["app-binding"]).toEqual([
        "fail",
        "hostname-not-bound",
      ]);
      expect(byName(report.results, "app-gone").checks["app-binding"]).toEqual([
        "fail",
        "app-missing",
      ]);
      // Kept with the certificate, for the sweep and the dashboard.
      expect((await inventory.get("app-gone"))?.lastPreflight?.status).toBe("will-fail");
    } finally {
      await withInventory.close();
    }
  });
});
