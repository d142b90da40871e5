import { describe, expect, it } from "vitest";
import type { CertificateRecord } from "../../../../shared/core/certificate/records.js";
import type { InventoryRecord } from "../../../../shared/core/ports/inventory.js";
import {
  applicableChecks,
  fromDueRecord,
  fromInventory,
  inPreflightWindow,
  normalDomain,
} from "../../../../shared/core/preflight/subject.js";

const now = new Date("2026-11-20T06:00:00Z");
const DAY = 86_400_000;

const inventory = (fields: Partial<InventoryRecord>): InventoryRecord => ({
  certificateName: "shop",
  source: "created",
  firstSeen: now,
  lastSeen: now,
  ...fields,
});

describe("what preflight knows of a certificate", () => {
  it("reads an inventory row, with the app from the create request", () => {
    expect(
      fromInventory(
        inventory({
          rootDomain: " Shop.Contoso.com. ",
          target: "Cloud App Service",
          challengeType: "http",
          cloudSubscriptionId: "sub-1",
          appServiceResourceGroup: "rg-web",
          appServiceName: "shop-app",
          appServiceSlot: "staging",
          serviceExpiry: now,
        }),
      ),
    ).toEqual({
      certificateName: "shop",
      expiry: now,
      subject: {
        certificateName: "shop",
        rootDomain: "shop.contoso.com",
        challengeType: "http",
        target: "Cloud App Service",
        cloudSubscriptionId: "sub-1",
        dnsZoneResourceGroup: undefined,
        site: {
          subscriptionId: "sub-1",
          resourceGroup: "rg-web",
          site: "shop-app",
          slot: "staging",
        },
      },
    });
  });

  it("knows no site without the app's resource group, and no slot for production", () => {
    const noGroup = fromInventory(
      inventory({ rootDomain: "a.test", cloudSubscriptionId: "s", appServiceName: "x" }),
    );
    expect(noGroup?.subject?.site).toBeUndefined();
    const production = fromInventory(
      inventory({
        rootDomain: "a.test",
        cloudSubscriptionId: "s",
        appServiceResourceGroup: "rg",
        appServiceName: "x",
        appServiceSlot: "",
      }),
    );
    expect(production?.subject?.site).toEqual({
      subscriptionId: "s",
      resourceGroup: "rg",
      site: "x",
    });
  });

  it("leaves watched endpoints out and a certificate without a domain unchecked", () => {
    expect(fromInventory(inventory({ certificateName: "watch:a.test:443" }))).toBeUndefined();
    expect(fromInventory(inventory({ rootDomain: "  " }))?.subject).toBeUndefined();
  });

  it("reads a due record: no app, the record's own fields", () => {
    const record = {
      certificateName: "vault-cert",
      id: 7,
      subscriptionId: 1,
      target: "Cloud Key Vault + DNS",
      renewal: "Auto",
      expiryDate: now,
      rootDomain: "*.Contoso.com",
      keyVaultName: "kv",
      keyVaultCertificateName: null,
      challengeType: "dns",
      cloudSubscriptionId: "sub-2",
      dnsZoneResourceGroup: "rg-dns",
    } as CertificateRecord;
    expect(fromDueRecord(record)).toEqual({
      certificateName: "vault-cert",
      expiry: now,
      subject: {
        certificateName: "vault-cert",
        rootDomain: "*.contoso.com",
        challengeType: "dns",
        target: "Cloud Key Vault + DNS",
        cloudSubscriptionId: "sub-2",
        dnsZoneResourceGroup: "rg-dns",
      },
    });
    expect(
      fromDueRecord({ ...record, challengeType: 42, rootDomain: null } as CertificateRecord),
    ).toMatchObject({
      subject: undefined,
    });
  });

  it("normalises domains: case, spaces and a trailing dot", () => {
    expect(normalDomain("WWW.Example.COM..")).toBe("www.example.com");
    expect(normalDomain(null)).toBeUndefined();
    expect(normalDomain(" . ")).toBeUndefined();
  });
});

describe("the timer's selection", () => {
  it("takes certificates within CERTSCHED_PREFLIGHT_DAYS of the 20-day window, and those in it", () => {
    const at = (days: number) => new Date(now.getTime() + days * DAY);
    expect(inPreflightWindow(at(50), now, 30)).toBe(true);
    expect(inPreflightWindow(new Date(at(50).getTime() + 1), now, 30)).toBe(false);
    expect(inPreflightWindow(at(5), now, 30)).toBe(true);
    expect(inPreflightWindow(at(-3), now, 30)).toBe(true);
    expect(inPreflightWindow(at(20), now, 0)).toBe(true);
    expect(inPreflightWindow(at(21), now, 0)).toBe(false);
  });

  it("checks a certificate whose expiry is not known yet", () => {
    expect(inPreflightWindow(undefined, now, 0)).toBe(true);
  });
});

describe("which checks apply (the contract's 'runs for')", () => {
  const subject = (target: string, challengeType?: string) => ({
    certificateName: "c",
    rootDomain: "a.test",
    target,
    challengeType,
  });

  it("App Service with http: caa, app-binding, http-challenge, access", () => {
    expect(applicableChecks(subject("Cloud App Service", "http"))).toEqual([
      "caa",
      "app-binding",
      "http-challenge",
      "access",
    ]);
  });

  it("App Service with dns: caa, dns-zone, app-binding, access", () => {
    expect(applicableChecks(subject("Cloud App Service", "DNS"))).toEqual([
      "caa",
      "dns-zone",
      "app-binding",
      "access",
    ]);
  });

  it("Key Vault + DNS: caa, dns-zone, access, even when the record names no challenge", () => {
    expect(applicableChecks(subject("Cloud Key Vault + DNS"))).toEqual([
      "caa",
      "dns-zone",
      "access",
    ]);
  });

  it("an unknown target: caa and access only", () => {
    expect(applicableChecks(subject("Something Else"))).toEqual(["caa", "access"]);
  });
});
