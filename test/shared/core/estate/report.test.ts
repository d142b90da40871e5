import { describe, expect, it } from "vitest";
import type { EstateCertificate } from "../../../../shared/core/estate/estate.js";
import { enteringExpiring, keptOf } from "../../../../shared/core/estate/kept.js";
import { type EstateReport, estateReport } from "../../../../shared/core/estate/report.js";
import type { InventoryRecord } from "../../../../shared/core/ports/inventory.js";

const NOW = new Date("2026-12-02T12:00:00Z");
const DAY = 86_400_000;
const SUB = "00000000-0000-0000-0000-000000000001";
const THUMB = "0123456789ABCDEF0123456789ABCDEF01234567";

function cert(name: string, fields: Partial<EstateCertificate> = {}): EstateCertificate {
  return {
    id: `/subscriptions/${SUB}/resourcegroups/rg/providers/microsoft.web/certificates/${name}`,
    kind: "app-service-certificate",
    name,
    subscriptionId: SUB,
    resourceGroup: "rg",
    expiresAt: new Date(NOW.getTime() + 200 * DAY),
    hostNames: [],
    moreHostNames: 0,
    boundTo: [{ kind: "site", resourceId: "/x/sites/app", hostName: "app.example.org" }],
    problems: [],
    ...fields,
  };
}

function record(certificateName: string, fields: Partial<InventoryRecord> = {}): InventoryRecord {
  return { certificateName, source: "due-list", firstSeen: NOW, lastSeen: NOW, ...fields };
}

function report(discovered: EstateCertificate[], records: InventoryRecord[] = [], days = 30) {
  return estateReport({
    account: "prod",
    discovered,
    records,
    now: NOW,
    expiringDays: days,
    problems: [{ where: "vault v1", detail: "403", status: 403 }],
    truncated: 7,
  });
}

const only = (r: EstateReport) => r.entries[0];

describe("estateReport: matching with the inventory", () => {
  const vaultCert = cert("api", {
    kind: "key-vault",
    id: "https://kv-prod.vault.azure.net/certificates/api-cert",
  });

  it("matches a vault certificate by vault and the record's keyVaultCertificateName", () => {
    const r = report(
      [vaultCert],
      [record("api", { keyVaultName: "KV-Prod", keyVaultCertificateName: "API-Cert" })],
    );
    expect(only(r)).toMatchObject({ managedBy: "api", match: "vault", gaps: [] });
  });

  it("falls back to the record's certificateName when it names no vault certificate", () => {
    const r = report(
      [vaultCert],
      [record("api-cert", { keyVaultName: "kv-prod", keyVaultCertificateName: "" })],
    );
    expect(only(r)).toMatchObject({ managedBy: "api-cert", match: "vault" });
  });

  it("matches an App Service certificate through the vault secret it comes from, any version", () => {
    const c = cert("imported", { keyVaultId: "https://kv-prod.vault.azure.net/secrets/api-cert" });
    const r = report(
      [c],
      [record("x", { keyVaultName: "kv-prod", keyVaultCertificateName: "api-cert" })],
    );
    expect(only(r)).toMatchObject({ managedBy: "x", match: "vault" });
  });

  it("does not match another vault's certificate of the same name", () => {
    const r = report(
      [vaultCert],
      [record("x", { keyVaultName: "kv-test", keyVaultCertificateName: "api-cert" })],
    );
    expect(only(r)?.managedBy).toBeUndefined();
  });

  it("matches by the last verification's SHA-1 thumbprint, whatever its case and separators", () => {
    const verification = {
      sha1Thumbprint: THUMB.toLowerCase().replace(/(..)/g, "$1:").slice(0, -1),
    };
    const rec = record("web", { lastVerification: verification as never });
    expect(only(report([cert("other", { thumbprint: THUMB })], [rec]))).toMatchObject({
      managedBy: "web",
      match: "thumbprint",
    });
    expect(
      only(report([cert("other", { thumbprint: THUMB.replace(/7$/, "8") })], [rec]))?.managedBy,
    ).toBeUndefined();
  });

  it("matches by name, case-insensitive, after vault and thumbprint", () => {
    const r = report([cert("Web-Cert")], [record("web-cert")]);
    expect(only(r)).toMatchObject({ managedBy: "web-cert", match: "name" });
    const both = report(
      [cert("web-cert", { thumbprint: THUMB })],
      [record("web-cert"), record("z", { lastVerification: { sha1Thumbprint: THUMB } as never })],
    );
    expect(only(both)).toMatchObject({ managedBy: "z", match: "thumbprint" });
  });

  it("gives a managed certificate no gaps, however soon it expires and wherever it is bound", () => {
    const r = report([cert("web", { expiresAt: NOW, boundTo: [] })], [record("web")]);
    expect(only(r)?.gaps).toEqual([]);
    expect(r.counts).toMatchObject({
      certificates: 1,
      managed: 1,
      unmanaged: 0,
      "unmanaged-expiring": 0,
    });
  });
});

describe("estateReport: gaps", () => {
  it("counts an unmanaged certificate expiring exactly N days from now as expiring, not one ms later", () => {
    const at = (ms: number) => cert("c", { expiresAt: new Date(NOW.getTime() + ms) });
    expect(only(report([at(30 * DAY)]))?.gaps).toEqual(["unmanaged-expiring"]);
    expect(only(report([at(30 * DAY + 1)]))?.gaps).toEqual([]);
    expect(only(report([at(-DAY)]))?.gaps).toEqual(["unmanaged-expiring"]);
    expect(only(report([at(9 * DAY)], [], 8))?.gaps).toEqual([]);
    expect(only(report([cert("c", { expiresAt: undefined })]))?.gaps).toEqual([]);
  });

  it("flags a certificate bound nowhere", () => {
    expect(only(report([cert("c", { boundTo: [] })]))?.gaps).toEqual(["bound-nowhere"]);
  });

  it("flags a certificate on a host name certsched renews, wildcards matching one label", () => {
    const records = [
      record("wild", { rootDomain: "*.contoso.com" }),
      record("shop", { rootDomain: "shop.example", sanNames: ["WWW.Fabrikam.com."] }),
    ];
    const on = (hostName: string) =>
      cert("c", { boundTo: [{ kind: "listener", resourceId: "/gw/l", hostName }] });
    for (const name of ["www.contoso.com", "shop.example", "www.fabrikam.com"]) {
      expect(only(report([on(name)], records))).toMatchObject({
        gaps: ["different-certificate"],
        renewedHostNames: [name],
      });
    }
    for (const name of ["contoso.com", "a.b.contoso.com", "fabrikam.com", "x.shop.example"]) {
      expect(only(report([on(name)], records))?.gaps).toEqual([]);
    }
    const covering = cert("c", { hostNames: ["*.fabrikam.com"] });
    expect(only(report([covering], records))?.gaps).toEqual(["different-certificate"]);
  });

  it("ignores watched endpoints: certsched does not renew them", () => {
    const r = report(
      [cert("c")],
      [record("watch:app.example.org", { rootDomain: "app.example.org" })],
    );
    expect(only(r)?.gaps).toEqual([]);
  });
});

describe("estateReport: order and counts", () => {
  it("puts expiring ones first (soonest first), then different certificates, bound nowhere, the rest by name", () => {
    const r = report(
      [
        cert("b-plain"),
        cert("nowhere", { boundTo: [] }),
        cert("late", { expiresAt: new Date(NOW.getTime() + 20 * DAY), boundTo: [] }),
        cert("a-plain"),
        cert("different", { hostNames: ["www.contoso.com"] }),
        cert("managed"),
        cert("soon", { expiresAt: new Date(NOW.getTime() + 2 * DAY) }),
      ],
      [record("managed"), record("site", { rootDomain: "www.contoso.com" })],
    );
    expect(r.entries.map((e) => e.certificate.name)).toEqual([
      "soon",
      "late",
      "different",
      "nowhere",
      "a-plain",
      "b-plain",
      "managed",
    ]);
    expect(r.counts).toEqual({
      certificates: 7,
      managed: 1,
      unmanaged: 6,
      "unmanaged-expiring": 2,
      "different-certificate": 1,
      "bound-nowhere": 2,
    });
    expect(r).toMatchObject({ account: "prod", at: NOW, expiringDays: 30, truncated: 7 });
    expect(r.problems).toEqual([{ where: "vault v1", detail: "403", status: 403 }]);
  });
});

describe("enteringExpiring", () => {
  const soon = (name: string) => cert(name, { expiresAt: new Date(NOW.getTime() + 5 * DAY) });

  it("answers every expiring entry when there was no report before", () => {
    expect(
      enteringExpiring(undefined, report([soon("a"), cert("b")])).map((e) => e.certificate.name),
    ).toEqual(["a"]);
  });

  it("answers only the entries that were not expiring before, by id", () => {
    const before = report([soon("a"), cert("b")]);
    const after = report([soon("a"), soon("b"), soon("c")]);
    expect(enteringExpiring(keptOf(before), after).map((e) => e.certificate.name)).toEqual([
      "b",
      "c",
    ]);
    expect(enteringExpiring(keptOf(after), after)).toEqual([]);
  });

  it("answers one that leaves the set and comes back", () => {
    const gone = report([soon("a")], [record("a")]);
    expect(
      enteringExpiring(keptOf(gone), report([soon("a")])).map((e) => e.certificate.name),
    ).toEqual(["a"]);
  });
});
