import { describe, expect, it } from "vitest";
import {
  ARI_SETTINGS,
  loadAriSettings,
  parseAriDirectory,
} from "../../../../shared/app/config/ariSettings.js";
import { KNOWN_SETTINGS } from "../../../../shared/app/config/schema.js";
import { ConfigError } from "../../../../shared/lib/errors.js";

function problemsOf(env: Record<string, string>): { name: string; message: string }[] {
  try {
    loadAriSettings(env);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  throw new Error("expected a ConfigError");
}

const LE = {
  issuer: "Let's Encrypt",
  directoryUrl: "https://acme-v02.api.letsencrypt.org/directory",
};

describe("ARI settings, read on first use", () => {
  it("defaults to Let's Encrypt's production directory and a 10 s timeout", () => {
    expect(loadAriSettings({})).toEqual({ directories: [LE], timeoutMs: 10_000 });
    expect(loadAriSettings({ CERTSCHED_ARI_DIRECTORIES: "  " })).toEqual({
      directories: [LE],
      timeoutMs: 10_000,
    });
  });

  it("`none` turns ARI off", () => {
    expect(loadAriSettings({ CERTSCHED_ARI_DIRECTORIES: "None" }).directories).toEqual([]);
  });

  it("a set value is the whole list: entries by `;` or new lines, the first `=` splits", () => {
    expect(
      loadAriSettings({
        CERTSCHED_ARI_DIRECTORIES:
          "Example CA=https://acme.example/dir?x=1;\n (STAGING) Let's Encrypt = https://acme-staging-v02.api.letsencrypt.org/directory ;",
      }).directories,
    ).toEqual([
      { issuer: "Example CA", directoryUrl: "https://acme.example/dir?x=1" },
      {
        issuer: "(STAGING) Let's Encrypt",
        directoryUrl: "https://acme-staging-v02.api.letsencrypt.org/directory",
      },
    ]);
  });

  it.each([
    ["https://acme.example/directory", "entries `Issuer Name=https://"],
    ["=https://acme.example/directory", "entries `Issuer Name=https://"],
    ["Example=http://acme.example/directory", "the directory of Example must use https"],
    ["Example=acme.example", "the directory of Example must be an absolute URL"],
    ["Example=https://u:p@acme.example/", "must not carry credentials"],
    ["A=https://a.example/;a=https://b.example/", "names a twice"],
    [";", "entries `Issuer Name=https://"],
  ])("refuses %s, naming the setting", (value, message) => {
    const problems = problemsOf({ CERTSCHED_ARI_DIRECTORIES: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]?.name).toBe("CERTSCHED_ARI_DIRECTORIES");
    expect(problems[0]?.message).toContain(message);
  });

  it("reports every bad setting together; the timeout's range is 1 s..60 s", () => {
    const problems = problemsOf({ CERTSCHED_ARI_DIRECTORIES: "x", CERTSCHED_ARI_TIMEOUT: "61s" });
    expect(problems.map((p) => p.name)).toEqual([
      "CERTSCHED_ARI_DIRECTORIES",
      "CERTSCHED_ARI_TIMEOUT",
    ]);
    expect(loadAriSettings({ CERTSCHED_ARI_TIMEOUT: "60s" }).timeoutMs).toBe(60_000);
    expect(loadAriSettings({ CERTSCHED_ARI_TIMEOUT: "1s" }).timeoutMs).toBe(1_000);
    expect(problemsOf({ CERTSCHED_ARI_TIMEOUT: "999ms" })[0]?.name).toBe("CERTSCHED_ARI_TIMEOUT");
  });

  it("an issuer name of 200 characters is kept, 201 is refused", () => {
    expect(parseAriDirectory(`${"a".repeat(200)}=https://a.example/`)).toHaveProperty("issuer");
    expect(typeof parseAriDirectory(`${"a".repeat(201)}=https://a.example/`)).toBe("string");
  });

  it("lists its names among the known settings (the CLI's did-you-mean)", () => {
    expect(ARI_SETTINGS).toEqual(["CERTSCHED_ARI_DIRECTORIES", "CERTSCHED_ARI_TIMEOUT"]);
    for (const name of ARI_SETTINGS) expect(KNOWN_SETTINGS).toContain(name);
  });
});
