import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  parseConnectTo,
  resolveConnectTo,
} from "../../../../shared/core/verification/connectTo.js";
import { ConfigError } from "../../../../shared/lib/errors.js";
import { propertyRuns } from "../../../support/fastCheck.js";

describe("CERTSCHED_VERIFY_CONNECT_TO parsing (curl's --connect-to)", () => {
  it.each([
    [
      "a.test:443:127.0.0.1:8443",
      [{ fromHost: "a.test", fromPort: 443, toHost: "127.0.0.1", toPort: 8443 }],
    ],
    [
      "::127.0.0.1:8443",
      [{ fromHost: undefined, fromPort: undefined, toHost: "127.0.0.1", toPort: 8443 }],
    ],
    [
      "a.test::b.test:",
      [{ fromHost: "a.test", fromPort: undefined, toHost: "b.test", toPort: undefined }],
    ],
    [":443::9443", [{ fromHost: undefined, fromPort: 443, toHost: undefined, toPort: 9443 }]],
    [
      "[::1]:443:[fe80::1%eth0]:8443",
      [{ fromHost: "::1", fromPort: 443, toHost: "fe80::1%eth0", toPort: 8443 }],
    ],
    ["A.Test:443:[::1]:1", [{ fromHost: "a.test", fromPort: 443, toHost: "::1", toPort: 1 }]],
    [
      "Bücher.test:443:bücher.lan:1",
      [{ fromHost: "xn--bcher-kva.test", fromPort: 443, toHost: "xn--bcher-kva.lan", toPort: 1 }],
    ],
    [
      " a.test:443:127.0.0.1:1 , :: [::1] :2".replace(" [::1] ", "[::1]"),
      [
        { fromHost: "a.test", fromPort: 443, toHost: "127.0.0.1", toPort: 1 },
        { fromHost: undefined, fromPort: undefined, toHost: "::1", toPort: 2 },
      ],
    ],
    ["", []],
    ["   ", []],
  ])("%j", (text, rules) => {
    expect(parseConnectTo(text)).toEqual(rules);
  });

  it("reads an unset setting as no rules", () => {
    expect(parseConnectTo(undefined)).toEqual([]);
  });

  it.each([
    [
      "a.test:443:127.0.0.1",
      'entry 1 of 1 ("a.test:443:127.0.0.1") must have four fields, HOST1:PORT1:HOST2:PORT2',
    ],
    [
      "a.test:443:127.0.0.1:1:2",
      'entry 1 of 1 ("a.test:443:127.0.0.1:1:2") must have four fields, HOST1:PORT1:HOST2:PORT2',
    ],
    ["a.test:0:b:1", 'has port "0", which is not a whole number from 1 to 65535'],
    ["a.test:443:b:65536", 'has port "65536", which is not a whole number from 1 to 65535'],
    ["a.test:4x3:b:1", 'has port "4x3"'],
    ["::1:443:b:1", "must have four fields"],
    ["[::1:443:b:1", 'has "[" without "]"'],
    ["[a.test]:443:b:1", 'has "[a.test]", which is not an IPv6 address'],
    ["a test:443:b:1", 'has "a test", which is not a host name or IPv4 address'],
    ["a.test:443:b:1,,c:1:d:2", "entry 2 of 3 is empty"],
    ["a.test:443:b:1,", "entry 2 of 2 is empty"],
    ["a]b:1:c:2", 'has a "[" or "]" out of place'],
  ])("refuses %j, naming the setting, the entry and the rule", (text, message) => {
    let error: unknown;
    try {
      parseConnectTo(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]?.name).toBe("CERTSCHED_VERIFY_CONNECT_TO");
    expect(problems[0]?.message).toContain(message);
  });

  it("escapes control characters in the entry it quotes", () => {
    expect(() => parseConnectTo("a\u001b[2J:1:b:2")).toThrow(/a\\u\{1b\}\[2J/);
  });

  it.each([
    ["a\u001bb:1:b:2", 'has "a\\u{1b}b", which is not a host name'],
    ["a.test:443:b\u0007c:1", 'has "b\\u{07}c", which is not a host name'],
    ["[::1\u001b]:1:b:2", 'has "[::1\\u{1b}]", which is not an IPv6 address'],
    ["a.test:4\u001b3:b:1", 'has port "4\\u{1b}3"'],
  ])("escapes control characters in the part it names too: %j", (text, message) => {
    let problem = "";
    try {
      parseConnectTo(text);
    } catch (error) {
      problem = (error as ConfigError).problems[0]?.message ?? "";
    }
    expect(problem).toContain(message);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: none may remain.
    expect(problem).not.toMatch(/[\u0000-\u001f]/);
  });
});

describe("where a probe connects", () => {
  const rules = parseConnectTo(
    "www.contoso.test:443:127.0.0.1:9001,www.contoso.test::127.0.0.1:9002,:8443:[::1]:,[::1]:443::9003,::localhost:9004",
  );
  it.each([
    // The first matching entry wins: the exact host and port before the any-port entry.
    ["www.contoso.test", 443, "127.0.0.1", 9001],
    ["WWW.Contoso.Test.", 443, "127.0.0.1", 9001],
    ["www.contoso.test", 444, "127.0.0.1", 9002],
    // Any host on port 8443: to ::1, the port unchanged.
    ["api.contoso.test", 8443, "::1", 8443],
    // An IPv6 source, the host unchanged.
    ["::1", 443, "::1", 9003],
    // However the address is written: the same address.
    ["0:0:0:0:0:0:0:1", 443, "0:0:0:0:0:0:0:1", 9003],
    // The catch-all.
    ["other.test", 443, "localhost", 9004],
  ])("%s:%i -> %s:%i", (host, port, toHost, toPort) => {
    expect(resolveConnectTo(rules, host, port)).toEqual({ host: toHost, port: toPort });
  });

  it("connects to the endpoint itself when no rule matches", () => {
    expect(resolveConnectTo(parseConnectTo("a.test:443:b.test:1"), "c.test", 443)).toEqual({
      host: "c.test",
      port: 443,
    });
    expect(resolveConnectTo(parseConnectTo("a.test:443:b.test:1"), "a.test", 8443)).toEqual({
      host: "a.test",
      port: 8443,
    });
    expect(resolveConnectTo([], "a.test", 443)).toEqual({ host: "a.test", port: 443 });
  });
});

describe("connect-to properties", () => {
  const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/);
  const hostname = fc
    .array(label, { minLength: 1, maxLength: 4 })
    .map((labels) => labels.join("."));
  const ipv4 = fc.ipV4();
  const ipv6 = fc.ipV6();
  /** A host as written in the setting, and as the rule holds it. */
  const host = fc.oneof(
    fc.constant({ written: "", held: undefined }),
    hostname.map((h) => ({ written: h, held: h })),
    ipv4.map((h) => ({ written: h, held: h })),
    ipv6.map((h) => ({ written: `[${h}]`, held: h.toLowerCase() })),
  );
  const port = fc.oneof(
    fc.constant({ written: "", held: undefined }),
    fc.integer({ min: 1, max: 65_535 }).map((p) => ({ written: String(p), held: p })),
  );
  const entry = fc.record({ fromHost: host, fromPort: port, toHost: host, toPort: port });

  it("every well-formed list of entries parses to exactly its rules", () => {
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 5 }), (entries) => {
        const text = entries
          .map((e) => [e.fromHost, e.fromPort, e.toHost, e.toPort].map((f) => f.written).join(":"))
          .join(",");
        expect(parseConnectTo(text)).toEqual(
          entries.map((e) => ({
            fromHost: e.fromHost.held,
            fromPort: e.fromPort.held,
            toHost: e.toHost.held,
            toPort: e.toPort.held,
          })),
        );
      }),
      { numRuns: propertyRuns(300) },
    );
  });

  it("the first matching rule decides; no match leaves the endpoint as it is", () => {
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 5 }),
        hostname,
        fc.integer({ min: 1, max: 65_535 }),
        (entries, h, p) => {
          const rules = entries.map((e) => ({
            fromHost: e.fromHost.held,
            fromPort: e.fromPort.held,
            toHost: e.toHost.held,
            toPort: e.toPort.held,
          }));
          const first = rules.find(
            (r) =>
              (r.fromHost === undefined || r.fromHost === h) &&
              (r.fromPort === undefined || r.fromPort === p),
          );
          expect(resolveConnectTo(rules, h, p)).toEqual(
            first === undefined
              ? { host: h, port: p }
              : { host: first.toHost ?? h, port: first.toPort ?? p },
          );
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });
});
