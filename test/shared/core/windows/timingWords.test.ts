import { describe, expect, it } from "vitest";
import type { Opening } from "../../../../shared/core/windows/calendar.js";
import { openingText, timingDetail } from "../../../../shared/core/windows/timingWords.js";

const next: Opening = {
  window: "W[0]",
  opensAt: new Date("2026-12-08T08:00:00Z"),
  closesAt: new Date("2026-12-08T15:00:00Z"),
  timeZone: "Europe/Berlin",
  opensAtLocal: "2026-12-08 09:00 Europe/Berlin",
};
const mustRenewBy = new Date("2026-12-05T00:00:00Z");
const frozen = {
  label: "F[0]",
  from: new Date("2026-12-01T00:00:00Z"),
  to: new Date("2026-12-06T00:00:00Z"),
  reason: "release",
};

describe("timing words", () => {
  it("an opening in its zone and in UTC", () => {
    expect(openingText(next)).toBe("2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC)");
  });

  it.each([
    [{ kind: "unrestricted" } as const, ""],
    [{ kind: "open", opening: next } as const, ""],
    [
      { kind: "waiting", next, mustRenewBy } as const,
      "outside its renewal windows; waiting: the next window opens 2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC)",
    ],
    [
      { kind: "waiting", next, mustRenewBy, frozen } as const,
      "frozen until 2026-12-06 00:00 UTC (release); waiting: the next window opens 2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC)",
    ],
    [
      { kind: "waiting", next, mustRenewBy, outsideLater: true } as const,
      "outside its renewal windows; the next window opens 2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC), too late for it: a later run renews it outside its windows, by 2026-12-05 00:00 UTC",
    ],
    [
      { kind: "outside", because: "expiry", next, mustRenewBy } as const,
      "renewed outside its renewal windows: it must be renewed by 2026-12-05 00:00 UTC (its expiry less the margin) and the next window opens 2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC), too late",
    ],
    [
      { kind: "outside", because: "ari", next, mustRenewBy, frozen } as const,
      "renewed in a freeze (release): the CA's renewal window (ARI) ends 2026-12-05 00:00 UTC, before the next window opens 2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC): the CA's word beats the calendar",
    ],
    [
      { kind: "outside", because: "expiry", next: undefined, mustRenewBy } as const,
      "renewed outside its renewal windows: it must be renewed by 2026-12-05 00:00 UTC (its expiry less the margin) and no window opens within ten years",
    ],
    [
      {
        kind: "disabled",
        policy: { label: "P[0]", certificates: ["legacy-*"], policy: "disabled" },
      } as const,
      "disabled by P[0]: never renewed (still verified and watched)",
    ],
  ])("%#: %s", (timing, words) => {
    expect(timingDetail(timing)).toBe(words);
  });
});
