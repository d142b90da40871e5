import { afterEach, describe, expect, it, vi } from "vitest";
import { platformEnv } from "../../../../shared/app/config/platform.js";

describe("platformEnv", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("picks the platform's three variables and nothing else", () => {
    expect(
      platformEnv({
        WEBSITE_AUTH_ENABLED: "True",
        CERTSCHED_RENEWAL_SCHEDULE: "0 0 3 * * *",
        WEBSITE_TIME_ZONE: "W. Europe Standard Time",
        CERTSCHED_API_KEY: "secret",
        PATH: "/usr/bin",
      }),
    ).toEqual({
      WEBSITE_AUTH_ENABLED: "True",
      CERTSCHED_RENEWAL_SCHEDULE: "0 0 3 * * *",
      WEBSITE_TIME_ZONE: "W. Europe Standard Time",
    });
  });

  it("leaves out what is not set, and keeps an empty value as given", () => {
    const picked = platformEnv({ WEBSITE_AUTH_ENABLED: "", WEBSITE_TIME_ZONE: undefined });
    expect(picked).toEqual({ WEBSITE_AUTH_ENABLED: "" });
    expect("WEBSITE_TIME_ZONE" in picked).toBe(false);
    expect(platformEnv({})).toEqual({});
  });

  it("reads process.env by default, on every call", () => {
    vi.stubEnv("WEBSITE_TIME_ZONE", "UTC");
    expect(platformEnv().WEBSITE_TIME_ZONE).toBe("UTC");
    vi.stubEnv("WEBSITE_TIME_ZONE", "Tokyo Standard Time");
    expect(platformEnv().WEBSITE_TIME_ZONE).toBe("Tokyo Standard Time");
  });
});
