import { describe, expect, it } from "vitest";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import type { Env } from "../../../../shared/core/settings.js";
import { ConfigError } from "../../../../shared/lib/errors.js";

const BASE: Env = {
  CERTSCHED_BASE_URL: "https://certs.example.com",
  CERTSCHED_SUBSCRIPTION: "portal-subscription",
  CERTSCHED_TENANT_ID: "tenant-1",
  CERTSCHED_CLIENT_ID: "client-1",
  CERTSCHED_CLIENT_SECRET: "client-secret-value-1",
};

describe("CERTSCHED_RENEWAL_CONCURRENCY_MAX", () => {
  it("is unset by default (adaptive concurrency then never grows past CERTSCHED_RENEWAL_CONCURRENCY)", () => {
    expect(loadSettings(BASE).renewalConcurrencyMax).toBeUndefined();
    expect(
      loadSettings({ ...BASE, CERTSCHED_RENEWAL_CONCURRENCY_MAX: "" }).renewalConcurrencyMax,
    ).toBeUndefined();
  });

  it("takes a whole number from 1 to 256", () => {
    expect(
      loadSettings({ ...BASE, CERTSCHED_RENEWAL_CONCURRENCY_MAX: "1" }).renewalConcurrencyMax,
    ).toBe(1);
    expect(
      loadSettings({ ...BASE, CERTSCHED_RENEWAL_CONCURRENCY_MAX: "256" }).renewalConcurrencyMax,
    ).toBe(256);
  });

  it.each(["0", "257", "1.5", "lots", "-4"])(
    "refuses %j, naming the setting and the rule",
    (value) => {
      let error: unknown;
      try {
        loadSettings({ ...BASE, CERTSCHED_RENEWAL_CONCURRENCY_MAX: value });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toEqual([
        {
          name: "CERTSCHED_RENEWAL_CONCURRENCY_MAX",
          message: "must be a whole number from 1 to 256",
        },
      ]);
    },
  );
});
