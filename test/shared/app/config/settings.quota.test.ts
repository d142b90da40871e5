import { describe, expect, it } from "vitest";
import { loadSettings } from "../../../../shared/app/config/settings.js";
import { QUOTA_RULE } from "../../../../shared/core/quota/serviceQuota.js";
import type { Env } from "../../../../shared/core/settings.js";
import { ConfigError, type Problem } from "../../../../shared/lib/errors.js";

/** CERTSCHED_SCHEDULE_TIMEOUT and CERTSCHED_SERVICE_QUOTA: defaults, ranges, clear errors. */

const BASE: Env = {
  CERTSCHED_BASE_URL: "https://certs.example.com",
  CERTSCHED_SUBSCRIPTION: "portal-subscription",
  CERTSCHED_TENANT_ID: "tenant-1",
  CERTSCHED_CLIENT_ID: "client-1",
  CERTSCHED_CLIENT_SECRET: "client-secret-value-1",
};

function problemsOf(env: Env): Problem[] {
  try {
    loadSettings({ ...BASE, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return [...(error as ConfigError).problems];
  }
  throw new Error("expected a ConfigError");
}

const DAY = 86_400_000;

describe("CERTSCHED_SCHEDULE_TIMEOUT", () => {
  it("defaults to 120 s, apart from CERTSCHED_HTTP_TIMEOUT", () => {
    const s = loadSettings({ ...BASE, CERTSCHED_HTTP_TIMEOUT: "5s" });
    expect(s.scheduleTimeoutMs).toBe(120_000);
    expect(s.httpTimeoutMs).toBe(5_000);
  });

  it.each([
    ["100ms", 100],
    ["200s", 200_000],
    ["PT3M20S", 200_000],
    ["90s", 90_000],
  ])("accepts %s", (value, ms) => {
    expect(loadSettings({ ...BASE, CERTSCHED_SCHEDULE_TIMEOUT: value }).scheduleTimeoutMs).toBe(ms);
  });

  it.each([
    ["99ms", "must be between 0.1s and 200s"],
    // Over 200 s: with the confirming Get Certificate, past the 230 s front end of the functions.
    ["201s", "must be between 0.1s and 200s"],
    ["230s", "must be between 0.1s and 200s"],
    ["2 minutes", "must be a duration like 2h, 90m, 30s or PT2H"],
  ])("refuses %s, naming the setting and the rule", (value, message) => {
    expect(problemsOf({ CERTSCHED_SCHEDULE_TIMEOUT: value })).toEqual([
      { name: "CERTSCHED_SCHEDULE_TIMEOUT", message },
    ]);
  });
});

describe("CERTSCHED_SERVICE_QUOTA", () => {
  it("is unset by default: nothing enforced", () => {
    expect(loadSettings(BASE).serviceQuota).toBeUndefined();
  });

  it.each([
    ["100/7d", { requests: 100, windowMs: 7 * DAY, text: "100/7d" }],
    [" 100 / 168h ", { requests: 100, windowMs: 7 * DAY, text: "100/168h" }],
    ["1/1h", { requests: 1, windowMs: 3_600_000, text: "1/1h" }],
    ["1000000/31d", { requests: 1_000_000, windowMs: 31 * DAY, text: "1000000/31d" }],
    ["500/P7D", { requests: 500, windowMs: 7 * DAY, text: "500/P7D" }],
  ])("accepts %j", (value, quota) => {
    expect(loadSettings({ ...BASE, CERTSCHED_SERVICE_QUOTA: value }).serviceQuota).toEqual(quota);
  });

  it.each([
    ["100", QUOTA_RULE],
    ["100 per week", QUOTA_RULE],
    ["/7d", QUOTA_RULE],
    ["-5/7d", QUOTA_RULE],
    ["1.5/7d", QUOTA_RULE],
    ["0/7d", `${QUOTA_RULE} (the number of requests is out of range)`],
    ["1000001/7d", `${QUOTA_RULE} (the number of requests is out of range)`],
    ["100/week", `${QUOTA_RULE} (the window is not a duration)`],
    ["100/59m", `${QUOTA_RULE} (the window is out of range)`],
    ["100/32d", `${QUOTA_RULE} (the window is out of range)`],
  ])("refuses %j, naming the setting and the rule", (value, message) => {
    expect(problemsOf({ CERTSCHED_SERVICE_QUOTA: value })).toEqual([
      { name: "CERTSCHED_SERVICE_QUOTA", message },
    ]);
  });

  it("refuses a window longer than the history keeps requests, and accepts one as long", () => {
    expect(
      problemsOf({ CERTSCHED_SERVICE_QUOTA: "100/7d", CERTSCHED_HISTORY_RETENTION: "6d" }),
    ).toEqual([
      {
        name: "CERTSCHED_SERVICE_QUOTA",
        message:
          "its window (100/7d) must not be longer than CERTSCHED_HISTORY_RETENTION: requests older than the retention are no longer counted",
      },
    ]);
    const s = loadSettings({
      ...BASE,
      CERTSCHED_SERVICE_QUOTA: "100/7d",
      CERTSCHED_HISTORY_RETENTION: "7d",
    });
    expect(s.serviceQuota?.windowMs).toBe(7 * DAY);
  });

  it("is reported with every other problem at once", () => {
    const names = problemsOf({
      CERTSCHED_SERVICE_QUOTA: "lots",
      CERTSCHED_SCHEDULE_TIMEOUT: "forever",
    }).map((p) => p.name);
    expect(names.sort()).toEqual(["CERTSCHED_SCHEDULE_TIMEOUT", "CERTSCHED_SERVICE_QUOTA"]);
  });
});
