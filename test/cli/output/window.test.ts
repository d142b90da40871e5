import { describe, expect, it } from "vitest";
import { palette } from "../../../cli/output/color.js";
import { calendarOf, windowCell } from "../../../cli/output/window.js";
import { OPEN_CALENDAR } from "../../../shared/core/windows/calendar.js";

const plain = palette({ isTTY: false, columns: undefined, write: () => {} }, {});

describe("calendarOf", () => {
  it("none when nothing is declared, or the settings are unknown", () => {
    expect(calendarOf({ renewalCalendar: OPEN_CALENDAR }, "default")).toBeUndefined();
    expect(calendarOf(undefined, "default")).toBeUndefined();
    expect(calendarOf({}, "default")).toBeUndefined();
  });

  it("the account's calendar when a freeze alone is declared", () => {
    const freeze = {
      label: "CERTSCHED_RENEWAL_FREEZES[0]",
      from: new Date("2026-12-20T00:00:00.000Z"),
      to: new Date("2027-01-06T00:00:00.000Z"),
      reason: "year end",
    };
    const calendar = calendarOf({ renewalCalendar: { ...OPEN_CALENDAR, freezes: [freeze] } }, "b");
    expect(calendar?.account).toBe("b");
    expect(calendar?.restricted).toBe(true);
  });
});

describe("windowCell", () => {
  it("the calendar's words, or '-' for a certificate it says nothing of", () => {
    expect(windowCell(null, plain)).toBe("-");
    expect(windowCell(undefined, plain)).toBe("-");
    const cell = windowCell({ state: "waiting", text: "waiting: opens soon" }, plain);
    expect(typeof cell === "string" ? cell : cell.text).toBe("waiting: opens soon");
  });
});
