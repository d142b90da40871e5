import { describe, expect, it } from "vitest";
import { endpointKey, parseEndpoint } from "../../../../shared/core/verification/endpoint.js";

describe("an endpoint named by a person (--domain, NAME[:PORT])", () => {
  it.each([
    ["www.contoso.com", { host: "www.contoso.com", port: 443, label: "www.contoso.com" }],
    [
      "WWW.Contoso.com:8443",
      { host: "www.contoso.com", port: 8443, label: "www.contoso.com:8443" },
    ],
    ["www.contoso.com.", { host: "www.contoso.com", port: 443, label: "www.contoso.com" }],
    ["127.0.0.1:1", { host: "127.0.0.1", port: 1, label: "127.0.0.1:1" }],
    ["[::1]:65535", { host: "::1", port: 65535, label: "[::1]:65535" }],
    ["[::1]", { host: "::1", port: 443, label: "[::1]" }],
    ["localhost", { host: "localhost", port: 443, label: "localhost" }],
    // Internationalized names connect, send SNI and match certificates in their ASCII form.
    [
      "Bücher.example:8443",
      { host: "xn--bcher-kva.example", port: 8443, label: "bücher.example:8443" },
    ],
    [
      "xn--bcher-kva.example",
      { host: "xn--bcher-kva.example", port: 443, label: "xn--bcher-kva.example" },
    ],
  ])("%s", (text, endpoint) => {
    expect(parseEndpoint(text)).toEqual(endpoint);
  });

  it.each([
    ["", "must be NAME[:PORT]"],
    ["::1", "write IPv6 addresses in brackets"],
    ["[a.test]:443", "is not an IPv6 address"],
    ["*.contoso.com", "a wildcard is not an address to connect to"],
    ["a.test:0", 'has port "0"'],
    ["a.test:65536", 'has port "65536"'],
    ["a.test:", 'has port ""'],
    ["a b.test", "must be NAME[:PORT]"],
    ["bü\u0000cher.test", "must be NAME[:PORT]"],
    ["https://a.test", "the host name, not a URL"],
    ["a.test/path", "the host name, not a URL"],
  ])("refuses %j", (text, rule) => {
    const parsed = parseEndpoint(text);
    expect(typeof parsed).toBe("string");
    expect(parsed).toContain(rule);
  });
});

describe("endpointKey: one place to look, however it is written", () => {
  const key = (text: string) => {
    const parsed = parseEndpoint(text);
    if (typeof parsed === "string") throw new Error(parsed);
    return endpointKey(parsed);
  };
  it.each([
    ["www.contoso.com", "WWW.contoso.com.:443"],
    ["bücher.example", "xn--bcher-kva.example"],
    ["[::1]", "[0:0:0:0:0:0:0:1]:443"],
    ["[2001:db8::1]:8443", "[2001:DB8:0::1]:8443"],
  ])("%s and %s are one", (a, b) => {
    expect(key(a)).toBe(key(b));
  });
  it.each([
    ["www.contoso.com", "www.contoso.com:8443"],
    ["[::1]", "[::2]"],
    ["127.0.0.1", "[::ffff:127.0.0.1]"],
  ])("%s and %s are two", (a, b) => {
    expect(key(a)).not.toBe(key(b));
  });
});
