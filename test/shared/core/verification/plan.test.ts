import { describe, expect, it } from "vitest";
import type { InventoryRecord } from "../../../../shared/core/ports/inventory.js";
import {
  type Check,
  isWatch,
  MAX_DOMAIN,
  nameOf,
  plan,
} from "../../../../shared/core/verification/plan.js";
import { SERVICE_NAME_RULE } from "../../../../shared/core/verification/publicAddress.js";

const SEEN = new Date("2025-03-01T00:00:00Z");
const APP_SERVICE = "Cloud App Service";
const KEY_VAULT = "Cloud Key Vault + DNS";

const record = (
  certificateName: string,
  extra: Partial<InventoryRecord> = {},
): InventoryRecord => ({
  certificateName,
  source: "due-list",
  firstSeen: SEEN,
  lastSeen: SEEN,
  ...extra,
});
const app = (name: string, rootDomain?: string, sanNames?: string[]) =>
  record(name, { target: APP_SERVICE, rootDomain, sanNames });
const watched = (endpoint: string) => record(`watch:${endpoint}`, { source: "watch" });

/** A check as a line: kind, what it looks at, whose, and for TLS whether public only. */
function summary(check: Check): string {
  const owners = check.owners.map((o) => o.certificateName).join(",");
  if (check.kind === "tls") {
    return `tls ${check.endpoint.label} [${owners}]${check.publicOnly ? " public" : ""}`;
  }
  if (check.kind === "vault") return `vault [${owners}]`;
  return `unverifiable ${check.domain} [${owners}]`;
}

describe("isWatch and nameOf", () => {
  it("a watched endpoint's record is named watch:host[:port]", () => {
    expect(isWatch(watched("a.example:8443"))).toBe(true);
    expect(isWatch(app("web"))).toBe(false);
  });

  it("a result carries its first owner's name, none for a watched one", () => {
    expect(nameOf([app("web"), app("api")])).toEqual({ certificateName: "web" });
    expect(nameOf([watched("a.example"), app("web")])).toEqual({});
    expect(nameOf([])).toEqual({});
  });
});

describe("plan", () => {
  it("an App Service certificate: its rootDomain and each SAN name over TLS, public only", () => {
    expect(
      plan([app("web", "www.contoso.com", ["api.contoso.com", "www.contoso.com"])]).map(summary),
    ).toEqual(["tls www.contoso.com [web] public", "tls api.contoso.com [web] public"]);
  });

  it("one TLS check per domain, whichever records name it", () => {
    const checks = plan([app("web", "www.contoso.com"), app("web2", "WWW.contoso.com.")]);
    expect(checks.map(summary)).toEqual(["tls www.contoso.com [web,web2] public"]);
  });

  it("a Key Vault certificate is a vault check; without a vault name, unverifiable", () => {
    const checks = plan([
      record("kv", { target: KEY_VAULT, keyVaultName: "kv1" }),
      record("kv-none", { target: KEY_VAULT, rootDomain: "kv.contoso.com" }),
    ]);
    expect(checks.map(summary)).toEqual(["vault [kv]", "unverifiable kv.contoso.com [kv-none]"]);
    expect(checks[1]).toMatchObject({
      detail: "a Key Vault certificate, but the service names no keyVaultName for it",
    });
  });

  it("says why a record has nothing to look at", () => {
    const checks = plan([
      app("no-root"),
      record("unknown"),
      record("dns", { target: "DNS only", rootDomain: "dns.contoso.com" }),
    ]);
    expect(checks).toMatchObject([
      {
        kind: "unverifiable",
        domain: "no-root",
        detail: "the service lists no rootDomain for it, so there is no endpoint to check",
      },
      {
        kind: "unverifiable",
        domain: "unknown",
        detail: "its target is not known yet (the next sweep or Get Certificate tells it)",
      },
      {
        kind: "unverifiable",
        domain: "dns.contoso.com",
        detail:
          'target "DNS only" has no endpoint or vault certsched can look at (a DNS-only or stand-alone certificate); name its hosts in CERTSCHED_WATCH to check them',
      },
    ]);
  });

  it("a watched endpoint is probed wherever it resolves, on its port", () => {
    expect(plan([watched("127.0.0.1:8443")]).map(summary)).toEqual([
      "tls 127.0.0.1:8443 [watch:127.0.0.1:8443]",
    ]);
  });

  it("certificates come first: a domain both name is the certificate's, no longer public only", () => {
    const checks = plan([watched("www.contoso.com"), app("web", "www.contoso.com")]);
    expect(checks.map(summary)).toEqual(["tls www.contoso.com [web,watch:www.contoso.com]"]);
  });

  it("the service may not aim a probe at an address, a port or localhost", () => {
    const checks = plan([
      app("a", "127.0.0.1"),
      app("b", "www.contoso.com:8443"),
      app("c", "localhost"),
    ]);
    expect(checks.map((c) => c.kind)).toEqual(["unverifiable", "unverifiable", "unverifiable"]);
    expect(checks[0]).toMatchObject({
      domain: "127.0.0.1",
      detail: `not probed: its domain "127.0.0.1" is refused because it is an IP address, not a DNS host name: ${SERVICE_NAME_RULE}`,
    });
    expect(checks[1]).toMatchObject({ detail: expect.stringContaining("it carries a port") });
    expect(checks[2]).toMatchObject({ detail: expect.stringContaining("loopback name") });
  });

  it("a refused or unparsable SAN name is skipped; the rootDomain is checked all the same", () => {
    expect(
      plan([app("web", "www.contoso.com", ["*.contoso.com", "10.0.0.1"])]).map(summary),
    ).toEqual(["tls www.contoso.com [web] public"]);
  });

  it("a rootDomain that is no host name is unverifiable, pointing to CERTSCHED_WATCH", () => {
    const [check] = plan([app("wild", "*.contoso.com")]);
    expect(check).toMatchObject({ kind: "unverifiable", domain: "*.contoso.com" });
    expect(check?.kind === "unverifiable" && check.detail).toMatch(
      /^its domain .*wildcard.*; name the hosts to check in CERTSCHED_WATCH$/,
    );
  });

  it("bounds the domain of a long unprobeable name to MAX_DOMAIN, and the name in its detail", () => {
    expect(MAX_DOMAIN).toBe(300);
    const long = `${"a".repeat(30_000)}:1`;
    const [check] = plan([app("long", long)]);
    expect(check?.kind).toBe("unverifiable");
    if (check?.kind !== "unverifiable") return;
    expect(check.domain.length).toBeLessThanOrEqual(MAX_DOMAIN);
    expect(check.domain.length).toBeGreaterThan(MAX_DOMAIN - 10);
    expect(check.detail.length).toBeLessThan(200 + SERVICE_NAME_RULE.length);
  });
});
