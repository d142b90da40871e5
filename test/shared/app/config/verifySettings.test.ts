import { describe, expect, it } from "vitest";
import { KNOWN_SETTINGS } from "../../../../shared/app/config/schema.js";
import {
  loadVerifySettings,
  VERIFY_SETTINGS,
} from "../../../../shared/app/config/verifySettings.js";
import { ConfigError } from "../../../../shared/lib/errors.js";

describe("verification settings, read without the service's", () => {
  it("has its defaults with nothing set, and needs no CERTSCHED_BASE_URL", () => {
    expect(loadVerifySettings({})).toEqual({
      connectTo: [],
      warnDays: 14,
      windowMs: 2 * 3_600_000,
      unreachableAfterMs: 24 * 3_600_000,
      syncWindowMs: 24 * 3_600_000,
      eventRecheckFirstMs: 60_000,
      timeoutMs: 30_000,
    });
  });

  it("reads each setting; blanks count as unset", () => {
    const s = loadVerifySettings({
      CERTSCHED_VERIFY_CONNECT_TO: "a.test:443:127.0.0.1:8443",
      CERTSCHED_VERIFY_WARN_DAYS: "30",
      CERTSCHED_VERIFY_WINDOW: "90m",
      CERTSCHED_VERIFY_UNREACHABLE_AFTER: "  ",
      CERTSCHED_HTTP_TIMEOUT: "PT5S",
    });
    expect(s).toEqual({
      connectTo: [{ fromHost: "a.test", fromPort: 443, toHost: "127.0.0.1", toPort: 8443 }],
      warnDays: 30,
      windowMs: 90 * 60_000,
      unreachableAfterMs: 24 * 3_600_000,
      syncWindowMs: 24 * 3_600_000,
      eventRecheckFirstMs: 60_000,
      timeoutMs: 5_000,
    });
  });

  it("reports every problem at once, each naming its setting", () => {
    let error: unknown;
    try {
      loadVerifySettings({
        CERTSCHED_VERIFY_CONNECT_TO: "a.test:443",
        CERTSCHED_VERIFY_WARN_DAYS: "0",
        CERTSCHED_VERIFY_WINDOW: "soon",
        CERTSCHED_VERIFY_UNREACHABLE_AFTER: "31d",
        CERTSCHED_HTTP_TIMEOUT: "10ms",
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      {
        name: "CERTSCHED_VERIFY_CONNECT_TO",
        message: 'entry 1 of 1 ("a.test:443") must have four fields, HOST1:PORT1:HOST2:PORT2',
      },
      {
        name: "CERTSCHED_VERIFY_WARN_DAYS",
        message: "must be a whole number of days from 1 to 365",
      },
      { name: "CERTSCHED_VERIFY_WINDOW", message: "must be a duration like 2h, 90m, 30s or PT2H" },
      { name: "CERTSCHED_VERIFY_UNREACHABLE_AFTER", message: "must be between 0s and 2592000s" },
      { name: "CERTSCHED_HTTP_TIMEOUT", message: "must be between 0.1s and 600s" },
    ]);
  });

  it.each(["1", "365"])("accepts %s warning days (the range's ends)", (days) => {
    expect(loadVerifySettings({ CERTSCHED_VERIFY_WARN_DAYS: days }).warnDays).toBe(Number(days));
  });

  it.each(["366", "7.5", "-1", "14d"])("refuses %s warning days", (days) => {
    expect(() => loadVerifySettings({ CERTSCHED_VERIFY_WARN_DAYS: days })).toThrow(ConfigError);
  });

  it.each([
    ["1s", 1_000],
    ["90s", 90_000],
    ["PT1H", 3_600_000],
  ])("reads CERTSCHED_EVENT_RECHECK_FIRST %s (1s to 1h)", (text, ms) => {
    expect(loadVerifySettings({ CERTSCHED_EVENT_RECHECK_FIRST: text }).eventRecheckFirstMs).toBe(
      ms,
    );
  });

  it.each(["999ms", "61m", "0", "soon"])(
    "refuses CERTSCHED_EVENT_RECHECK_FIRST %s, naming it",
    (text) => {
      let error: unknown;
      try {
        loadVerifySettings({ CERTSCHED_EVENT_RECHECK_FIRST: text });
      } catch (e) {
        error = e;
      }
      expect((error as ConfigError).problems).toEqual([
        {
          name: "CERTSCHED_EVENT_RECHECK_FIRST",
          message:
            text === "soon"
              ? "must be a duration like 2h, 90m, 30s or PT2H"
              : "must be from 1s to 1h",
        },
      ]);
    },
  );

  it("names are known to the CLI, so it does not warn about them", () => {
    for (const name of VERIFY_SETTINGS) expect(KNOWN_SETTINGS).toContain(name);
  });
});
