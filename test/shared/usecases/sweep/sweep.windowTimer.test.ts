import { describe, expect, it } from "vitest";
import { renewalTimerOf } from "../../../../shared/app/appServices.js";

/**
 * The renewal timer a sweep's calendar reckons with (its last safe run outside the windows): the
 * host's CERTSCHED_RENEWAL_SCHEDULE, as the composition hands it to the sweep.
 */

const at = (iso: string) => new Date(iso);

describe("the renewal timer the calendar reckons with", () => {
  it("is CERTSCHED_RENEWAL_SCHEDULE's next firing in UTC; unknown when unset, unreadable or in another zone", () => {
    const timer = renewalTimerOf({ CERTSCHED_RENEWAL_SCHEDULE: "0 0 3 * * *" });
    expect(timer?.(at("2027-01-10T12:00:00.000Z"))?.toISOString()).toBe("2027-01-11T03:00:00.000Z");
    expect(renewalTimerOf({})).toBeUndefined();
    expect(renewalTimerOf({ CERTSCHED_RENEWAL_SCHEDULE: "every day" })).toBeUndefined();
    expect(
      renewalTimerOf({
        CERTSCHED_RENEWAL_SCHEDULE: "0 0 3 * * *",
        WEBSITE_TIME_ZONE: "W. Europe Standard Time",
      }),
    ).toBeUndefined();
    expect(
      renewalTimerOf({ CERTSCHED_RENEWAL_SCHEDULE: "0 0 3 * * *", WEBSITE_TIME_ZONE: "UTC" }),
    ).toBeDefined();
  });
});
