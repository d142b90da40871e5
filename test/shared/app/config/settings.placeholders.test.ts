import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KNOWN_SETTINGS } from "../../../../shared/app/config/schema.js";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import type { Env } from "../../../../shared/core/settings.js";
import { ConfigError, type Problem } from "../../../../shared/lib/errors.js";

/** The smallest valid environment for the default client-secret flow. */
const BASE: Env = {
  CERTSCHED_BASE_URL: "https://certs.example.com",
  CERTSCHED_SUBSCRIPTION: "portal-subscription",
  CERTSCHED_TENANT_ID: "tenant-1",
  CERTSCHED_CLIENT_ID: "client-1",
  CERTSCHED_CLIENT_SECRET: "client-secret-value-1",
};

function problemsOf(env: Env): readonly Problem[] {
  try {
    loadSettings(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error("expected loadSettings to throw a ConfigError");
}

const SAMPLE = JSON.parse(
  readFileSync(
    join(import.meta.dirname, "..", "..", "..", "..", "local.settings.sample.json"),
    "utf8",
  ),
) as { Values: Record<string, string> };

const PLACEHOLDER_MESSAGE = /still holds a placeholder from local\.settings\.sample\.json/;

describe("settings that still hold the sample's placeholders", () => {
  it("refuses every placeholder of local.settings.sample.json, each named, in one error", () => {
    const placeholders = Object.entries(SAMPLE.Values)
      .filter(([, value]) => value.includes("<"))
      .map(([name]) => name)
      .sort();
    // The sample's own placeholders: if the sample changes, this list must be looked at again.
    expect(placeholders).toEqual([
      "CERTSCHED_CLIENT_ID",
      "CERTSCHED_KEY_VAULT_URL",
      "CERTSCHED_SUBSCRIPTION",
      "CERTSCHED_SUBSCRIPTION_ID",
      "CERTSCHED_TENANT_ID",
    ]);

    const problems = problemsOf(SAMPLE.Values);

    const flagged = problems.filter((p) => PLACEHOLDER_MESSAGE.test(p.message));
    expect(flagged.map((p) => p.name).sort()).toEqual(placeholders);
    // One problem per setting: the vault URL's placeholder is not also "must be an absolute URL".
    expect(problems.filter((p) => p.name === "CERTSCHED_KEY_VAULT_URL")).toHaveLength(1);
  });

  it.each([
    ["CERTSCHED_TENANT_ID", "<directory (tenant) id>"],
    ["CERTSCHED_CLIENT_ID", "<application (client) id>"],
    ["CERTSCHED_KEY_VAULT_URL", "https://<your-vault>.vault.azure.net"],
    ["CERTSCHED_BASE_URL", "https://<service host>"],
    ["CERTSCHED_CLIENT_SECRET", "<client secret>"],
    ["CERTSCHED_API_KEY", "  <api key>  "],
  ])("%s = %s is refused, naming the setting, without quoting the value", (name, value) => {
    const problems = problemsOf({ ...BASE, [name]: value });

    expect(problems).toEqual([
      {
        name,
        message:
          "still holds a placeholder from local.settings.sample.json (<...>): replace it with the real value",
      },
    ]);
    expect(JSON.stringify(problems)).not.toContain(value.trim());
  });

  it.each([
    ["CERTSCHED_CLIENT_SECRET", "secret-a<b-value"],
    ["CERTSCHED_CLIENT_SECRET", "secret-x>y<z-value"],
    // A secret may hold a <...> pair; only a whole <...> value or one in a URL's host is a placeholder.
    ["CERTSCHED_API_KEY", 's3cr3t-"quoted"-<html>-tail'],
    ["CERTSCHED_SUBSCRIPTION", "sub-1"],
  ])("%s = %s (not a placeholder) is accepted", (name, value) => {
    expect(() => loadSettings({ ...BASE, [name]: value })).not.toThrow();
  });

  it("leaves names certsched does not read alone", () => {
    expect(() => loadSettings({ ...BASE, SOME_OTHER_APP_SETTING: "<not ours>" })).not.toThrow();
  });
});

describe("KNOWN_SETTINGS", () => {
  it("lists every setting of the schema and the host's CERTSCHED_RENEWAL_SCHEDULE", () => {
    expect(KNOWN_SETTINGS).toContain("CERTSCHED_DRY_RUN");
    expect(KNOWN_SETTINGS).toContain("CERTSCHED_BASE_URL");
    expect(KNOWN_SETTINGS).toContain("AzureWebJobsStorage");
    expect(KNOWN_SETTINGS).toContain("CERTSCHED_RENEWAL_SCHEDULE");
    // Every name in the sample is one certsched (or the Functions host) knows.
    const unknown = Object.keys(SAMPLE.Values).filter(
      (name) => name !== "FUNCTIONS_WORKER_RUNTIME" && !KNOWN_SETTINGS.includes(name),
    );
    expect(unknown).toEqual([]);
  });
});
