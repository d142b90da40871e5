import { describe, expect, it } from "vitest";
import type { InventoryRecord } from "../../../../shared/core/ports/inventory.js";
import type { WatchedName } from "../../../../shared/core/transparency/issuance.js";
import {
  MAX_NAME_PROBLEMS,
  MAX_WATCHED_NAMES,
  watchedNames,
} from "../../../../shared/core/transparency/watchedNames.js";

/** Which names the Certificate Transparency watch asks about for one account. */

const seen = new Date("2026-11-01T00:00:00Z");
const record = (
  certificateName: string,
  rootDomain: string | undefined,
  sanNames?: string[],
): InventoryRecord => ({
  certificateName,
  rootDomain,
  sanNames,
  source: "due-list",
  firstSeen: seen,
  lastSeen: seen,
});
const setting = (name: string, subdomains = true): WatchedName => ({
  name,
  subdomains,
  source: "setting",
});
const shown = (names: readonly WatchedName[]) =>
  names.map((n) => `${n.name}${n.subdomains ? " +sub" : ""} (${n.source})`);

describe("watchedNames", () => {
  it("asks each root domain with its subdomains and each SAN outside it alone, sorted", () => {
    const { names, problems } = watchedNames(
      [
        record("www-contoso", "Contoso.com.", ["www.contoso.com", "shop.fabrikam.net"]),
        record("api-fabrikam", "api.fabrikam.net", []),
      ],
      [],
    );

    expect(shown(names)).toEqual([
      "api.fabrikam.net +sub (inventory)",
      "contoso.com +sub (inventory)",
      "shop.fabrikam.net (inventory)",
    ]);
    expect(problems).toEqual([]);
  });

  it("asks a wildcard SAN's parent alone (match_wildcards finds the wildcard), unless covered", () => {
    const { names } = watchedNames(
      [record("wild", "contoso.com", ["*.contoso.com", "*.shop.fabrikam.net"])],
      [],
    );

    expect(shown(names)).toEqual(["contoso.com +sub (inventory)", "shop.fabrikam.net (inventory)"]);
  });

  it("skips CERTSCHED_WATCH endpoints, unless their row names a root domain", () => {
    const { names } = watchedNames(
      [
        record("watch:www.fabrikam.net:8443", undefined),
        record("watch:api.fabrikam.net", "api.fabrikam.net"),
      ],
      [],
    );

    expect(shown(names)).toEqual(["api.fabrikam.net +sub (inventory)"]);
  });

  it("asks SAN names of a certificate whose root domain is unknown", () => {
    const { names } = watchedNames([record("odd", undefined, ["www.contoso.com"])], []);

    expect(shown(names)).toEqual(["www.contoso.com (inventory)"]);
  });

  it("adds declared names; a name under one asked with subdomains is dropped; the wider asking wins", () => {
    const { names } = watchedNames(
      [record("a", "www.contoso.com"), record("b", "fabrikam.net", ["host.example.org"])],
      [setting("contoso.com"), setting("host.example.org", false), setting("example.org", false)],
    );

    expect(shown(names)).toEqual([
      "contoso.com +sub (setting)",
      "example.org (setting)",
      "fabrikam.net +sub (inventory)",
      "host.example.org (inventory)",
    ]);
  });

  it("refuses IP addresses, single labels and bad names, each named with its certificate", () => {
    const { names, problems } = watchedNames(
      [record("lab\u001b[2J", "intranet", ["192.0.2.7", "2001:db8::1", "ok.contoso.com"])],
      [setting("com")],
    );

    expect(shown(names)).toEqual(["ok.contoso.com (inventory)"]);
    expect(problems).toEqual([
      'certificate "lab\\u{1b}[2J": "intranet" is a single label (a top-level domain or a local name): name a registered domain or a name under one: not watched',
      'certificate "lab\\u{1b}[2J": "192.0.2.7" is an IP address: Certificate Transparency is searched by DNS name: not watched',
      'certificate "lab\\u{1b}[2J": "2001:db8::1" is an IP address: Certificate Transparency is searched by DNS name: not watched',
      'the declared names: "com" is a single label (a top-level domain or a local name): name a registered domain or a name under one: not watched',
    ]);
  });

  it("lists at most MAX_NAME_PROBLEMS refused names, then counts the rest", () => {
    const sans = Array.from({ length: 30 }, (_, i) => `10.0.0.${i}`);
    const { problems } = watchedNames([record("ips", "contoso.com", sans)], []);

    expect(problems).toHaveLength(MAX_NAME_PROBLEMS + 1);
    expect(problems.at(-1)).toBe(`and ${30 - MAX_NAME_PROBLEMS} more names refused`);
  });

  it("watches at most MAX_WATCHED_NAMES names, declared ones first, and says which are left out", () => {
    const many = Array.from({ length: MAX_WATCHED_NAMES + 2 }, (_, i) =>
      record(`c${i}`, `host${String(i).padStart(4, "0")}.example.net`),
    );
    const { names, problems } = watchedNames(many, [setting("zz.example.org")]);

    expect(names).toHaveLength(MAX_WATCHED_NAMES);
    expect(names.map((n) => n.name)).toContain("zz.example.org");
    expect(names.map((n) => n.name)).toEqual([...names.map((n) => n.name)].sort());
    expect(problems).toEqual([
      `3 names are not watched: at most ${MAX_WATCHED_NAMES} names are watched per account (host0499.example.net, host0500.example.net, host0501.example.net)`,
    ]);
  });

  it("answers the same whatever the order of the records", () => {
    const records = [
      record("a", "contoso.com", ["www.fabrikam.net"]),
      record("b", "fabrikam.net", ["*.example.org"]),
      record("c", "www.contoso.com", ["example.org"]),
    ];

    expect(watchedNames([...records].reverse(), [])).toEqual(watchedNames(records, []));
    expect(shown(watchedNames(records, []).names)).toEqual([
      "contoso.com +sub (inventory)",
      "example.org (inventory)",
      "fabrikam.net +sub (inventory)",
    ]);
  });
});
