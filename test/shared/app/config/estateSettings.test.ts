import { describe, expect, it } from "vitest";
import {
  ESTATE_SETTINGS,
  loadEstateSettings,
} from "../../../../shared/app/config/estateSettings.js";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import { ConfigError } from "../../../../shared/lib/errors.js";

describe("the estate's settings", () => {
  it("defaults: on, 30 days, 30 s", () => {
    expect(loadEstateSettings({})).toEqual({ enabled: true, expiringDays: 30, timeoutMs: 30_000 });
  });

  it("reads each, the bounds of the expiring days included", () => {
    expect(
      loadEstateSettings({
        CERTSCHED_ESTATE: "false",
        CERTSCHED_ESTATE_EXPIRING_DAYS: "365",
        CERTSCHED_ESTATE_TIMEOUT: "2m",
      }),
    ).toEqual({ enabled: false, expiringDays: 365, timeoutMs: 120_000 });
    expect(loadEstateSettings({ CERTSCHED_ESTATE_EXPIRING_DAYS: "1" }).expiringDays).toBe(1);
  });

  it("a bad value is a ConfigError naming the setting and the rule; only the estate's functions fail", () => {
    for (const [name, value] of [
      ["CERTSCHED_ESTATE", "yes"],
      ["CERTSCHED_ESTATE_EXPIRING_DAYS", "0"],
      ["CERTSCHED_ESTATE_EXPIRING_DAYS", "366"],
      ["CERTSCHED_ESTATE_TIMEOUT", "3m"],
    ] as const) {
      const error = (() => {
        try {
          loadEstateSettings({ [name]: value });
        } catch (e) {
          return e;
        }
      })();
      expect(error, `${name}=${value}`).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems[0]?.name).toBe(name);
    }
    // The app's settings load; only settings.estate() throws.
    const settings = loadSettings({
      CERTSCHED_BASE_URL: "https://service.example",
      CERTSCHED_TENANT_ID: "tenant",
      CERTSCHED_CLIENT_ID: "client",
      CERTSCHED_KEY_VAULT_URL: "https://vault.example",
      CERTSCHED_ESTATE_EXPIRING_DAYS: "0",
    });
    expect(() => settings.estate()).toThrow(ConfigError);
    expect(ESTATE_SETTINGS).toContain("CERTSCHED_ESTATE_EXPIRING_DAYS");
  });
});
