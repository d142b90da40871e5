import { describe, expect, it } from "vitest";
import {
  heldReason,
  OUTSIDE_WORDS,
  renewalDetail,
  windowNote,
} from "../../../../shared/core/renewal/windowNote.js";
import type { Opening, Timing } from "../../../../shared/core/windows/calendar.js";
import { timingDetail } from "../../../../shared/core/windows/timingWords.js";

const opening: Opening = {
  window: "CERTSCHED_RENEWAL_WINDOWS[0]",
  opensAt: new Date("2027-01-12T08:00:00.000Z"),
  closesAt: new Date("2027-01-12T15:00:00.000Z"),
  timeZone: "Europe/Berlin",
  opensAtLocal: "2027-01-12 09:00 CET",
};
const freeze = {
  label: "CERTSCHED_RENEWAL_FREEZES[0]",
  from: new Date("2027-01-01T00:00:00.000Z"),
  to: new Date("2027-01-12T00:00:00.000Z"),
  reason: "release week",
};
const mustRenewBy = new Date("2027-01-20T00:00:00.000Z");

describe("windowNote", () => {
  it("notes nothing for a certificate no window restricts", () => {
    expect(windowNote({ kind: "unrestricted" })).toBeUndefined();
    expect(heldReason({ kind: "unrestricted" })).toBeUndefined();
  });

  it("a waiting certificate: the next opening in UTC and locally, the deadline, the calendar's words", () => {
    const timing: Timing = { kind: "waiting", next: opening, mustRenewBy };
    expect(windowNote(timing)).toEqual({
      state: "waiting",
      window: "CERTSCHED_RENEWAL_WINDOWS[0]",
      opensAt: "2027-01-12T08:00:00.000Z",
      closesAt: "2027-01-12T15:00:00.000Z",
      opensAtLocal: "2027-01-12 09:00 CET",
      timeZone: "Europe/Berlin",
      mustRenewBy: "2027-01-20T00:00:00.000Z",
      detail: timingDetail(timing),
    });
    expect(heldReason(timing)).toBe("OutsideWindow");
  });

  it("a frozen one names the freeze's reason and end; its reason is Frozen", () => {
    const timing: Timing = { kind: "waiting", next: undefined, frozen: freeze, mustRenewBy };
    expect(windowNote(timing)).toMatchObject({
      state: "waiting",
      frozen: { reason: "release week", until: "2027-01-12T00:00:00.000Z" },
    });
    expect(heldReason(timing)).toBe("Frozen");
  });

  it("an outside renewal says it was renewed outside its windows, and why, before the service's words", () => {
    for (const because of ["expiry", "ari"] as const) {
      const timing: Timing = { kind: "outside", because, next: opening, mustRenewBy };
      const note = windowNote(timing);
      expect(note).toMatchObject({ state: "outside", because });
      expect(note?.detail).toMatch(/^renewed /);
      expect(note?.detail).toContain(timingDetail(timing).replace(`${OUTSIDE_WORDS}: `, ""));
      expect(renewalDetail(note, "renewal scheduled")).toBe(`${note?.detail}; renewal scheduled`);
    }
  });

  it("open and disabled", () => {
    expect(windowNote({ kind: "open", opening })).toMatchObject({
      state: "open",
      window: "CERTSCHED_RENEWAL_WINDOWS[0]",
      closesAt: "2027-01-12T15:00:00.000Z",
    });
    expect(renewalDetail(windowNote({ kind: "open", opening }), "ok")).toBe("ok");
    const policy = {
      label: "CERTSCHED_CERTIFICATE_POLICY[0]",
      certificates: ["legacy-*"],
      policy: "disabled" as const,
    };
    expect(windowNote({ kind: "disabled", policy })).toMatchObject({
      state: "disabled",
      policy: "CERTSCHED_CERTIFICATE_POLICY[0]",
    });
    expect(heldReason({ kind: "disabled", policy })).toBe("PolicyDisabled");
  });
});
