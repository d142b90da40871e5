import { describe, expect, it } from "vitest";
import { ConfigError } from "../../shared/errors.js";
import { parseConnectTo, resolveConnectTo } from "../../shared/verify/connectTo.js";

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
