import { describe, expect, it } from "vitest";
import { COMMON_OPTIONS } from "../../../cli/command.js";
import { windowsCommandWith } from "../../../cli/commands/windows.js";
import { reportFailure } from "../../../cli/failure.js";
import type { Io, OutputStream } from "../../../cli/io.js";
import { run } from "../../../cli/run.js";
import { parseCommandArgs } from "../../../cli/usage.js";
import { loadSettings } from "../../../shared/app/config/settings.js";
import type { Settings } from "../../../shared/core/settings.js";
import { OPEN_CALENDAR, type RenewalCalendar } from "../../../shared/core/windows/calendar.js";

/*
 * certsched windows in-process: an account's openings, freezes, disabled certificates and
 * warnings for the days asked, from the settings alone (the service is never reached: its base
 * URL is a closed port), with a clock of the test's own.
 */

const H = 3_600_000;
/** Monday 7 December 2026, 10:00 UTC. */
const NOW = new Date("2026-12-07T10:00:00.000Z");
const ENV = {
  CERTSCHED_BASE_URL: "http://127.0.0.1:9",
  CERTSCHED_TENANT_ID: "00000000-0000-4000-8000-00000000000a",
  CERTSCHED_CLIENT_ID: "00000000-0000-4000-8000-00000000000b",
  CERTSCHED_CLIENT_SECRET: "client-secret-never-used",
  NO_COLOR: "1",
};

const CALENDAR: RenewalCalendar = {
  ...OPEN_CALENDAR,
  windows: [
    {
      label: "CERTSCHED_RENEWAL_WINDOWS[0]",
      start: "0 9 * * 2-4",
      durationMs: 7 * H,
      timeZone: "Europe/Berlin",
      certificates: ["api-*", "www"],
    },
  ],
  freezes: [
    {
      label: "CERTSCHED_RENEWAL_FREEZES[0]",
      from: new Date("2026-12-20T00:00:00.000Z"),
      to: new Date("2027-01-06T00:00:00.000Z"),
      reason: "year-end freeze",
    },
  ],
  policies: [
    { label: "CERTSCHED_CERTIFICATE_POLICY[0]", certificates: ["legacy-*"], policy: "disabled" },
  ],
  jitterMs: 0,
  warnings: ["a gap of 25 days between openings: certificates may be renewed outside them"],
};

function capture(columns?: number): OutputStream & { text: string } {
  const stream = {
    text: "",
    isTTY: columns !== undefined,
    columns,
    write(chunk: string) {
      stream.text += chunk;
    },
  };
  return stream;
}

function ioOf(env: Record<string, string>): Io & { out: () => string; err: () => string } {
  const stdout = capture();
  const stderr = capture();
  return {
    env,
    cwd: "/nonexistent-certsched-test-dir",
    stdout,
    stderr,
    untilInterrupted: () => new Promise(() => {}),
    out: () => stdout.text,
    err: () => stderr.text,
  };
}

/** The settings of ENV, with `calendar` as the (only) account's. */
function settingsWith(calendar: RenewalCalendar): Settings {
  const settings = loadSettings(ENV);
  return {
    ...settings,
    renewalCalendar: calendar,
    accounts: settings.accounts.map((a) => ({ ...a, renewalCalendar: calendar })),
  };
}

/** `certsched windows <argv>` as cli/run.ts runs it, with the test's clock and settings. */
async function windows(argv: readonly string[], calendar: RenewalCalendar) {
  const command = windowsCommandWith({
    now: () => NOW,
    settings: async () => settingsWith(calendar),
  });
  const io = ioOf(ENV);
  let code: number;
  try {
    const options = { ...command.options, ...COMMON_OPTIONS };
    code = await command.run(parseCommandArgs("windows", argv, options, 0), io);
  } catch (error) {
    code = reportFailure(error, io, { json: argv.includes("--json"), command: "windows" });
  }
  return { code, stdout: io.out(), stderr: io.err() };
}

interface Document {
  from: string;
  to: string;
  days: number;
  accounts: {
    name: string;
    declared: boolean;
    openings: {
      opensAt: string;
      opens: string;
      window: string;
      certificates: string[] | null;
      frozenBy: { label: string; reason: string } | null;
    }[];
    freezes: { from: string; to: string; reason: string }[];
    disabled: { label: string; certificates: string[] }[];
    warnings: string[];
  }[];
}

describe("certsched windows", () => {
  it("--json: every opening of the next 30 days, none inside the freeze, and the policy", async () => {
    const result = await windows(["--json"], CALENDAR);

    expect(result.code, result.stderr).toBe(0);
    const doc = JSON.parse(result.stdout) as Document;
    expect(doc).toMatchObject({ from: NOW.toISOString(), days: 30 });
    const [account] = doc.accounts;
    // Tue-Thu of every week; those from 20 December on are held by the freeze.
    const opens = account?.openings.map((o) => o.opensAt) ?? [];
    expect(opens.slice(0, 6)).toEqual([
      "2026-12-08T08:00:00.000Z",
      "2026-12-09T08:00:00.000Z",
      "2026-12-10T08:00:00.000Z",
      "2026-12-15T08:00:00.000Z",
      "2026-12-16T08:00:00.000Z",
      "2026-12-17T08:00:00.000Z",
    ]);
    const frozen = account?.openings.filter((o) => o.frozenBy !== null) ?? [];
    expect(frozen.map((o) => o.opensAt.slice(0, 10))).toEqual([
      "2026-12-22",
      "2026-12-23",
      "2026-12-24",
      "2026-12-29",
      "2026-12-30",
      "2026-12-31",
      "2027-01-05",
    ]);
    expect(frozen[0]?.frozenBy).toEqual({
      label: "CERTSCHED_RENEWAL_FREEZES[0]",
      reason: "year-end freeze",
    });
    // The first after the freeze, within the 30 days: Wednesday 6 January.
    expect(opens.at(-1)).toBe("2027-01-06T08:00:00.000Z");
    expect(account?.openings[0]).toMatchObject({
      opens: "2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC)",
      window: "CERTSCHED_RENEWAL_WINDOWS[0]",
      certificates: ["api-*", "www"],
    });
    expect(account?.freezes).toEqual([
      expect.objectContaining({ reason: "year-end freeze", from: "2026-12-20T00:00:00.000Z" }),
    ]);
    expect(account?.disabled).toEqual([
      { label: "CERTSCHED_CERTIFICATE_POLICY[0]", certificates: ["legacy-*"] },
    ]);
    expect(account?.warnings).toEqual(CALENDAR.warnings);
  });

  it("for people: the openings in the zone and UTC, the freeze, the policy, the warning", async () => {
    const result = await windows(["--days", "2"], CALENDAR);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^OPENS\s+CLOSES\s+WINDOW\s+CERTIFICATES$/m);
    expect(result.stdout).toContain("2026-12-08 09:00 Europe/Berlin (2026-12-08 08:00 UTC)");
    expect(result.stdout).toContain("2026-12-08 16:00 Europe/Berlin (2026-12-08 15:00 UTC)");
    expect(result.stdout).toContain("api-*, www");
    // Two days from Monday 10:00 UTC: Tuesday and Wednesday, not Thursday.
    expect(result.stdout).toContain("2026-12-09 09:00 Europe/Berlin");
    expect(result.stdout).not.toContain("2026-12-10 09:00 Europe/Berlin");
    expect(result.stdout).toContain(
      "Disabled by policy (CERTSCHED_CERTIFICATE_POLICY[0]): legacy-*",
    );
    expect(result.stdout).toContain("within 3 days of its next opening");
    expect(result.stdout).toContain(`warning: ${CALENDAR.warnings[0]}`);
  });

  it("says when nothing is declared (exit 0)", async () => {
    const result = await windows([], OPEN_CALENDAR);

    expect(result.code).toBe(0);
    expect(result.stdout).toContain("No renewal calendar declared");
  });

  it.each([["0"], ["367"], ["x"]])("--days %s is a usage error (exit 2)", async (days) => {
    const result = await windows(["--days", days], CALENDAR);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--days must be a whole number from 1 to 366");
  });

  it("a declaration that does not load is a configuration error naming it (exit 2)", async () => {
    const io = ioOf({
      ...ENV,
      CERTSCHED_RENEWAL_WINDOWS: JSON.stringify([
        { start: "0 9 31 2 *", duration: "7h", timeZone: "Europe/Berlin" },
      ]),
    });

    const code = await run(["windows"], io);

    expect(code).toBe(2);
    expect(io.err()).toContain("CERTSCHED_RENEWAL_WINDOWS");
    expect(io.out()).toBe("");
  });

  it("reads the declaration from the settings, with no service reachable", async () => {
    const io = ioOf({
      ...ENV,
      CERTSCHED_RENEWAL_WINDOWS: JSON.stringify([
        { start: "0 9 * * 2-4", duration: "7h", timeZone: "Europe/Berlin" },
      ]),
    });

    const code = await run(["windows", "--json", "--days", "7"], io);

    expect(code, io.err()).toBe(0);
    const doc = JSON.parse(io.out()) as Document;
    expect(doc.accounts[0]?.declared).toBe(true);
    // Tuesday to Thursday, in Berlin: three or four openings in any seven days (one may be open).
    const openings = doc.accounts[0]?.openings ?? [];
    expect(openings.length).toBeGreaterThanOrEqual(3);
    expect(openings.length).toBeLessThanOrEqual(4);
    for (const o of openings) expect(o.opens).toMatch(/ 09:[0-3]\d Europe\/Berlin \(/);
  });

  it("each declared account's own calendar; --account picks one", async () => {
    const account = (name: string, extra: object = {}) => ({
      name,
      baseUrl: "http://127.0.0.1:9",
      subscription: `sub-${name}`,
      subscriptionId: "1001",
      apiKey: `api-key-of-${name}-0123`,
      tenantId: ENV.CERTSCHED_TENANT_ID,
      clientId: ENV.CERTSCHED_CLIENT_ID,
      clientSecret: `client-secret-of-${name}`,
      ...extra,
    });
    const env = {
      NO_COLOR: "1",
      CERTSCHED_ACCOUNTS: JSON.stringify([
        account("north"),
        account("south", {
          windows: [{ start: "0 22 * * 1-5", duration: "6h", timeZone: "America/New_York" }],
          certificatePolicy: [{ certificates: ["old-*"], policy: "disabled" }],
        }),
      ]),
    };
    const every = ioOf(env);
    const south = ioOf(env);

    expect(await run(["windows", "--json"], every), every.err()).toBe(0);
    expect(await run(["windows", "--account", "south"], south), south.err()).toBe(0);

    const doc = JSON.parse(every.out()) as Document;
    expect(doc.accounts.map((a) => [a.name, a.declared])).toEqual([
      ["north", false],
      ["south", true],
    ]);
    expect(doc.accounts[1]?.openings[0]?.opens).toMatch(/ 22:[0-3]\d America\/New_York \(/);
    expect(doc.accounts[1]?.disabled.map((d) => d.certificates)).toEqual([["old-*"]]);
    expect(south.out()).toContain("America/New_York");
    expect(south.out()).not.toContain("north");
  });
});
