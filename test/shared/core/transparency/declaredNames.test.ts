import { describe, expect, it } from "vitest";
import { parseDeclaredNames } from "../../../../shared/core/transparency/declaredNames.js";
import { MAX_WATCHED_NAMES } from "../../../../shared/core/transparency/watchedNames.js";

/** CERTSCHED_CT_DOMAINS: names the operator adds to the watch. */

const LABEL = "CERTSCHED_CT_DOMAINS";
const parse = (text: string | undefined) => parseDeclaredNames(text, LABEL);

describe("parseDeclaredNames", () => {
  it("reads names (with subdomains) and objects, lower-cased without a trailing dot", () => {
    const { names, problems } = parse(
      '["Example.org.", {"name": "host.example.net", "subdomains": false}, {"name": "shop.example.com"}]',
    );

    expect(problems).toEqual([]);
    expect(names).toEqual([
      { name: "example.org", subdomains: true, source: "setting" },
      { name: "host.example.net", subdomains: false, source: "setting" },
      { name: "shop.example.com", subdomains: true, source: "setting" },
    ]);
  });

  it.each([undefined, "", "  "])("%j: no names", (text) => {
    expect(parse(text)).toEqual({ names: [], problems: [] });
  });

  it("names every bad entry by its place, and keeps the good ones", () => {
    const { names, problems } = parse(
      JSON.stringify([
        "ok.example.org",
        "com",
        { name: "192.0.2.1" },
        { name: "a.example.org", subdomain: false },
        { name: 7 },
        { name: "b.example.org", subdomains: "no" },
        "*.example.org",
        42,
        null,
        ["c.example.org"],
        { name: "evil\u202e.example.org" },
      ]),
    );

    expect(names.map((n) => n.name)).toEqual(["ok.example.org"]);
    expect(problems).toEqual([
      `${LABEL}[1]: "com" is a single label (a top-level domain or a local name): name a registered domain or a name under one`,
      `${LABEL}[2].name: "192.0.2.1" is an IP address: Certificate Transparency is searched by DNS name`,
      `${LABEL}[3]: unknown field "subdomain" (the fields are "name" and "subdomains")`,
      `${LABEL}[4].name: must be a DNS name (a string)`,
      `${LABEL}[5].subdomains: must be true or false`,
      `${LABEL}[6]: "*.example.org" is a wildcard: write the name without "*." (its subdomains are watched)`,
      `${LABEL}[7]: must be a name ("example.org") or {"name": "host.example.net", "subdomains": false}`,
      `${LABEL}[8]: must be a name ("example.org") or {"name": "host.example.net", "subdomains": false}`,
      `${LABEL}[9]: must be a name ("example.org") or {"name": "host.example.net", "subdomains": false}`,
      `${LABEL}[10].name: "evil\\u{202e}.example.org" is not a DNS name (its characters do not make an internationalized name)`,
    ]);
  });

  it("refuses text that is not JSON without quoting it (a setting may hold a secret)", () => {
    const { names, problems } = parse('["example.org", secret-value');

    expect(names).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^CERTSCHED_CT_DOMAINS: is not valid JSON/);
    expect(problems[0]).not.toContain("secret-value");
  });

  it.each(['"example.org"', '{"name": "example.org"}', "7"])("%s is not an array", (text) => {
    expect(parse(text).problems).toEqual([
      `${LABEL}: must be a JSON array of names: "example.org" (with its subdomains) or {"name": "host.example.net", "subdomains": false}`,
    ]);
  });

  it("refuses more names than are watched, and bounds the problems listed", () => {
    const tooMany = JSON.stringify(
      Array.from({ length: MAX_WATCHED_NAMES + 1 }, (_, i) => `h${i}.example.org`),
    );
    expect(parse(tooMany).problems).toEqual([
      `${LABEL}: at most ${MAX_WATCHED_NAMES} names are watched (it has ${MAX_WATCHED_NAMES + 1})`,
    ]);

    const bad = JSON.stringify(Array.from({ length: 100 }, () => "localhost"));
    expect(parse(bad).problems).toHaveLength(21);
    expect(parse(bad).problems.at(-1)).toBe("and 80 more names refused");
  });
});
