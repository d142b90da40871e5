import { describe, expect, it } from "vitest";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import { ConfigError } from "../../../../shared/lib/errors.js";

const BASE = {
  CERTSCHED_BASE_URL: "https://service.invalid",
  CERTSCHED_CLOUD_CREDENTIAL: "managed-identity",
};

const load = (env: Record<string, string>) => loadSettings({ ...BASE, ...env });

function problemsOf(env: Record<string, string>): { name: string; message: string }[] {
  try {
    load(env);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  throw new Error("no ConfigError");
}

describe("CERTSCHED_WATCH", () => {
  it("is empty unless set; blank entries and repeats count once", () => {
    expect(load({}).watch).toEqual([]);
    expect(load({ CERTSCHED_WATCH: "  " }).watch).toEqual([]);
    const watch = load({
      CERTSCHED_WATCH:
        " WWW.Contoso.com , www.contoso.com,www.contoso.com:443,,api.contoso.com:8443,[::1]:9443,[0::1]:9443,10.0.0.4,",
    }).watch;
    expect(watch.map((e) => [e.label, e.host, e.port])).toEqual([
      ["www.contoso.com", "www.contoso.com", 443],
      ["api.contoso.com:8443", "api.contoso.com", 8443],
      ["[::1]:9443", "::1", 9443],
      ["10.0.0.4", "10.0.0.4", 443],
    ]);
  });

  it("names the setting and each bad entry, with its rule", () => {
    const problems = problemsOf({
      CERTSCHED_WATCH:
        "ok.contoso.com,https://a.contoso.com/,*.contoso.com,b.contoso.com:99999,::1",
    });
    expect(problems.every((p) => p.name === "CERTSCHED_WATCH")).toBe(true);
    const text = problems.map((p) => p.message).join("\n");
    expect(problems).toHaveLength(4);
    expect(text).toContain('"https://a.contoso.com/" must be NAME[:PORT]');
    expect(text).toContain("a wildcard is not an address to connect to");
    expect(text).toContain('port "99999", which is not a whole number from 1 to 65535');
    expect(text).toContain("write IPv6 addresses in brackets");
  });
});

describe("CERTSCHED_WATCH_CERTIFICATES", () => {
  it("names, trimmed, once each", () => {
    expect(load({}).watchCertificates).toEqual([]);
    expect(
      load({ CERTSCHED_WATCH_CERTIFICATES: " www-contoso ,shop,www-contoso,," }).watchCertificates,
    ).toEqual(["www-contoso", "shop"]);
  });

  it('refuses "." and ".." (they would change the Get Certificate path) and over-long names', () => {
    const problems = problemsOf({ CERTSCHED_WATCH_CERTIFICATES: `a,..,.,${"x".repeat(1025)}` });
    expect(problems.map((p) => p.name)).toEqual([
      "CERTSCHED_WATCH_CERTIFICATES",
      "CERTSCHED_WATCH_CERTIFICATES",
      "CERTSCHED_WATCH_CERTIFICATES",
    ]);
    expect(problems[0]?.message).toContain('entry ".." must be a certificate name');
  });
});
