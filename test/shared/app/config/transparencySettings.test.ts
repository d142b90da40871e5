import { describe, expect, it } from "vitest";
import { KNOWN_SETTINGS } from "../../../../shared/app/config/schema.js";
import {
  loadTransparencySettings,
  parseDeclaredDomains,
  TRANSPARENCY_SETTINGS,
} from "../../../../shared/app/config/transparencySettings.js";
import { ConfigError } from "../../../../shared/lib/errors.js";

function problemsOf(env: Record<string, string>): { name: string; message: string }[] {
  try {
    loadTransparencySettings(env);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("Certificate Transparency settings", () => {
  it("defaults: off, Cert Spotter, the vault's secret name, 100 an hour, 2 days, 20 s", () => {
    expect(loadTransparencySettings({})).toEqual({
      watch: false,
      url: "https://api.certspotter.com",
      apiKeySecretName: "certsched-ct-api-key",
      domains: [],
      hourlyAllowance: 100,
      completionWindowMs: 2 * 86_400_000,
      timeoutMs: 20_000,
    });
  });

  it("reads every setting, and the schedule and these are known names", () => {
    const s = loadTransparencySettings({
      CERTSCHED_CT_WATCH: "true",
      CERTSCHED_CT_URL: "http://127.0.0.1:8080/",
      CERTSCHED_CT_API_KEY: "k-123456789012345",
      CERTSCHED_CT_DOMAINS: '["Example.ORG.", {"name": "host.example.net", "subdomains": false}]',
      CERTSCHED_CT_HOURLY_ALLOWANCE: "1",
      CERTSCHED_CT_COMPLETION_WINDOW: "1h",
      CERTSCHED_CT_TIMEOUT: "1s",
    });
    expect(s).toMatchObject({
      watch: true,
      url: "http://127.0.0.1:8080",
      apiKey: "k-123456789012345",
      hourlyAllowance: 1,
      completionWindowMs: 3_600_000,
      timeoutMs: 1_000,
    });
    expect(s.domains).toEqual([
      { name: "example.org", subdomains: true, source: "setting" },
      { name: "host.example.net", subdomains: false, source: "setting" },
    ]);
    for (const name of [...TRANSPARENCY_SETTINGS, "CERTSCHED_CT_SCHEDULE"]) {
      expect(KNOWN_SETTINGS).toContain(name);
    }
  });

  it("refuses each bad value, naming the setting and the rule", () => {
    const problems = problemsOf({
      CERTSCHED_CT_WATCH: "yes",
      CERTSCHED_CT_URL: "http://ct.example.com",
      CERTSCHED_CT_HOURLY_ALLOWANCE: "0",
      CERTSCHED_CT_COMPLETION_WINDOW: "59m",
      CERTSCHED_CT_TIMEOUT: "3m",
      CERTSCHED_CT_API_KEY_SECRET_NAME: "a/b",
      CERTSCHED_CT_API_KEY: "k3y",
    });
    expect(problems.map((p) => p.name).sort()).toEqual([
      "CERTSCHED_CT_API_KEY",
      "CERTSCHED_CT_API_KEY_SECRET_NAME",
      "CERTSCHED_CT_COMPLETION_WINDOW",
      "CERTSCHED_CT_HOURLY_ALLOWANCE",
      "CERTSCHED_CT_TIMEOUT",
      "CERTSCHED_CT_URL",
      "CERTSCHED_CT_WATCH",
    ]);
    expect(problems.find((p) => p.name === "CERTSCHED_CT_URL")?.message).toMatch(/https/);
    // A key too short to be told from ordinary text could not be kept out of logs: refused, unquoted.
    expect(problems.find((p) => p.name === "CERTSCHED_CT_API_KEY")?.message).toMatch(
      /at least \d+ characters/,
    );
    expect(JSON.stringify(problems)).not.toContain("k3y");
  });

  it("the boundaries of the allowance and the window are accepted", () => {
    const s = loadTransparencySettings({
      CERTSCHED_CT_HOURLY_ALLOWANCE: "100000",
      CERTSCHED_CT_COMPLETION_WINDOW: "30d",
    });
    expect([s.hourlyAllowance, s.completionWindowMs]).toEqual([100_000, 30 * 86_400_000]);
    expect(problemsOf({ CERTSCHED_CT_HOURLY_ALLOWANCE: "100001" })[0]?.name).toBe(
      "CERTSCHED_CT_HOURLY_ALLOWANCE",
    );
  });

  it("declared domains: each bad entry named by its index, never echoed raw", () => {
    expect(
      parseDeclaredDomains('["ok.example", "com", "*.x.example", {"name": "1.2.3.4"}]'),
    ).toEqual([
      { name: "CERTSCHED_CT_DOMAINS[1]", message: expect.stringMatching(/single label/) },
      { name: "CERTSCHED_CT_DOMAINS[2]", message: expect.stringMatching(/is a wildcard/) },
      { name: "CERTSCHED_CT_DOMAINS[3].name", message: expect.any(String) },
    ]);
    expect(parseDeclaredDomains('[{"name": "a.example", "extra": 1}]')).toEqual([
      { name: "CERTSCHED_CT_DOMAINS[0]", message: expect.stringMatching(/unknown field "extra"/) },
    ]);
    expect(parseDeclaredDomains("{not json")[0]).toMatchObject({
      name: "CERTSCHED_CT_DOMAINS",
      message: expect.stringMatching(/not valid JSON/),
    });
    expect(parseDeclaredDomains("")).toEqual([]);
  });
});
