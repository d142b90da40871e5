import { describe, expect, it } from "vitest";
import {
  loadPreflightSettings,
  PREFLIGHT_SETTINGS,
  parseDnsServer,
} from "../../../../shared/app/config/preflightSettings.js";
import { KNOWN_SETTINGS } from "../../../../shared/app/config/schema.js";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import { ConfigError } from "../../../../shared/lib/errors.js";

function problemsOf(env: Record<string, string>): { name: string; message: string }[] {
  try {
    loadPreflightSettings(env);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("preflight settings, read on first use", () => {
  it("has the contract's defaults with nothing set", () => {
    expect(loadPreflightSettings({})).toEqual({
      armUrl: "https://management.azure.com",
      dnsServers: [],
      caIdentifiers: ["letsencrypt.org"],
      days: 30,
      timeoutMs: 5_000,
      connectTo: [],
    });
  });

  it("reads each setting; blanks count as unset", () => {
    const s = loadPreflightSettings({
      CERTSCHED_ARM_URL: "https://127.0.0.1:8443/",
      CERTSCHED_DNS_SERVERS: "127.0.0.1:5353, [::1]:53,dns.example , ::1",
      CERTSCHED_CA_IDENTIFIERS: "LetsEncrypt.org, digicert.com",
      CERTSCHED_PREFLIGHT_DAYS: "0",
      CERTSCHED_PREFLIGHT_TIMEOUT: "   ",
      CERTSCHED_VERIFY_CONNECT_TO: "a.test:80:127.0.0.1:8080",
    });
    expect(s).toEqual({
      armUrl: "https://127.0.0.1:8443",
      dnsServers: [
        { host: "127.0.0.1", port: 5353 },
        { host: "::1", port: 53 },
        { host: "dns.example", port: 53 },
        { host: "::1", port: 53 },
      ],
      caIdentifiers: ["letsencrypt.org", "digicert.com"],
      days: 0,
      timeoutMs: 5_000,
      connectTo: [{ fromHost: "a.test", fromPort: 80, toHost: "127.0.0.1", toPort: 8080 }],
    });
  });

  it("refuses plain http for ARM: Azure's SDKs send tokens only over TLS", () => {
    expect(problemsOf({ CERTSCHED_ARM_URL: "http://127.0.0.1:8080" })).toEqual([
      {
        name: "CERTSCHED_ARM_URL",
        message: expect.stringMatching(/^must use https .*NODE_EXTRA_CA_CERTS/),
      },
    ]);
    expect(problemsOf({ CERTSCHED_ARM_URL: "https://user:pw@arm.test" })[0]?.name).toBe(
      "CERTSCHED_ARM_URL",
    );
    expect(problemsOf({ CERTSCHED_ARM_URL: "not a url" })[0]?.message).toBe(
      "must be an absolute URL",
    );
  });

  it("reports every problem at once, each naming its setting, never echoing the value", () => {
    const problems = problemsOf({
      CERTSCHED_DNS_SERVERS: "127.0.0.1:0",
      CERTSCHED_CA_IDENTIFIERS: " , ",
      CERTSCHED_PREFLIGHT_DAYS: "366",
      CERTSCHED_PREFLIGHT_TIMEOUT: "99ms",
    });
    expect(problems.map((p) => p.name)).toEqual([
      "CERTSCHED_DNS_SERVERS",
      "CERTSCHED_CA_IDENTIFIERS",
      "CERTSCHED_PREFLIGHT_DAYS",
      "CERTSCHED_PREFLIGHT_TIMEOUT",
    ]);
    expect(problems[2]?.message).toBe("must be a whole number of days from 0 to 365");
    expect(problems[3]?.message).toBe("must be between 0.1s and 60s");
    expect(JSON.stringify(problems)).not.toContain("127.0.0.1:0");
  });

  it("pins the day and timeout bounds", () => {
    expect(loadPreflightSettings({ CERTSCHED_PREFLIGHT_DAYS: "365" }).days).toBe(365);
    expect(problemsOf({ CERTSCHED_PREFLIGHT_DAYS: "-1" })[0]?.name).toBe(
      "CERTSCHED_PREFLIGHT_DAYS",
    );
    expect(loadPreflightSettings({ CERTSCHED_PREFLIGHT_TIMEOUT: "100ms" }).timeoutMs).toBe(100);
    expect(loadPreflightSettings({ CERTSCHED_PREFLIGHT_TIMEOUT: "60s" }).timeoutMs).toBe(60_000);
    expect(problemsOf({ CERTSCHED_PREFLIGHT_TIMEOUT: "61s" })[0]?.name).toBe(
      "CERTSCHED_PREFLIGHT_TIMEOUT",
    );
  });

  it("is parsed on first use: a bad preflight setting fails preflight, not every command", () => {
    const settings = loadSettings({
      CERTSCHED_BASE_URL: "http://127.0.0.1:1",
      CERTSCHED_TENANT_ID: "t",
      CERTSCHED_CLIENT_ID: "c",
      CERTSCHED_CLIENT_SECRET: "a-client-secret-long-enough",
      CERTSCHED_ARM_URL: "http://arm.test",
    });
    expect(() => settings.preflight()).toThrow(ConfigError);
    expect(() => settings.preflight()).toThrow(/CERTSCHED_ARM_URL/);
  });

  it("lists its names among the known settings (the CLI's did-you-mean)", () => {
    for (const name of [...PREFLIGHT_SETTINGS, "CERTSCHED_PREFLIGHT_SCHEDULE"]) {
      expect(KNOWN_SETTINGS).toContain(name);
    }
  });
});

describe("one CERTSCHED_DNS_SERVERS entry", () => {
  it.each([
    ["1.1.1.1", { host: "1.1.1.1", port: 53 }],
    ["1.1.1.1:1", { host: "1.1.1.1", port: 1 }],
    ["1.1.1.1:65535", { host: "1.1.1.1", port: 65_535 }],
    ["[2001:db8::1]:5353", { host: "2001:db8::1", port: 5353 }],
    ["[::1]", { host: "::1", port: 53 }],
    ["2001:db8::1", { host: "2001:db8::1", port: 53 }],
    ["ns1.example.com.", { host: "ns1.example.com.", port: 53 }],
  ])("reads %s", (entry, expected) => {
    expect(parseDnsServer(entry)).toEqual(expected);
  });

  it.each([
    ["1.1.1.1:65536", /port/],
    ["1.1.1.1:0", /port/],
    ["1.1.1.1:", /port/],
    ["[not-v6]:53", /IPv6/],
    ["bad host!", /host name or an IP address/],
    ["-leading.example", /host name or an IP address/],
  ])("refuses %s", (entry, message) => {
    expect(parseDnsServer(entry)).toMatch(message);
  });
});
