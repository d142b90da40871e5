import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Io, OutputStream } from "../../../cli/io.js";
import { run } from "../../../cli/run.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import { type Simulator, sandboxSettings, startSimulator } from "../../../sim/index.js";

/*
 * certsched status with a renewal calendar declared in the settings, in-process over the
 * simulator and Azurite: each certificate's next window as a line under the table and a `window`
 * field in --json.
 */

const suffix = Math.random().toString(36).slice(2, 8);
const WAITS = `win-waits-${suffix}`;
const URGENT = `win-urgent-${suffix}`;
const LEGACY = `legacy-${suffix}`;

/** A window two days ahead (Berlin's weekday), one hour long: never open now. */
const weekday = (new Date().getUTCDay() + 2) % 7;
const DECLARATION = {
  CERTSCHED_RENEWAL_WINDOWS: JSON.stringify([
    { start: `0 9 * * ${weekday}`, duration: "1h", timeZone: "Europe/Berlin" },
  ]),
  CERTSCHED_CERTIFICATE_POLICY: JSON.stringify([
    { certificates: ["legacy-*"], policy: "disabled" },
  ]),
};

let sim: Simulator;
beforeAll(async () => {
  const inDays = (days: number) => new Date(Date.now() + days * DAY_MS);
  sim = await startSimulator({
    certificates: [
      { certificateName: WAITS, expiryDate: inDays(15), rootDomain: "contoso.com" },
      { certificateName: URGENT, expiryDate: inDays(1), rootDomain: "contoso.com" },
      { certificateName: LEGACY, expiryDate: inDays(10), rootDomain: "contoso.com" },
    ],
  });
}, 60_000);
afterAll(async () => {
  await sim?.close();
});

function capture(): OutputStream & { text: string } {
  const stream = {
    text: "",
    isTTY: false,
    columns: undefined,
    write(chunk: string) {
      stream.text += chunk;
    },
  };
  return stream;
}

async function cli(argv: readonly string[], extra: Record<string, string> = DECLARATION) {
  const stdout = capture();
  const stderr = capture();
  const io: Io = {
    env: {
      ...sandboxSettings(sim),
      AzureWebJobsStorage: inject("azuriteTableConnectionString"),
      NO_COLOR: "1",
      ...extra,
    },
    cwd: "/nonexistent-certsched-test-dir",
    stdout,
    stderr,
    untilInterrupted: () => new Promise(() => {}),
  };
  const code = await run(argv, io);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

interface WithWindow {
  certificateName: string;
  window?: { state: string; text: string; opensAt?: string; because?: string } | null;
}

const WAITING =
  /waiting: opens \d{4}-\d\d-\d\d 09:[0-3]\d Europe\/Berlin \(\d{4}-\d\d-\d\d 0[78]:[0-3]\d UTC\)/;

describe("certsched status with a renewal calendar", () => {
  it("a line per certificate under the table, and window in --json", async () => {
    const text = await cli(["status", WAITS, URGENT, LEGACY]);
    const json = await cli(["status", "--json", WAITS, URGENT, LEGACY]);

    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^${WAITS}: ${WAITING.source}`, "m"));
    expect(text.stdout).toMatch(
      new RegExp(`^${URGENT}: renewed outside its renewal windows: `, "m"),
    );
    expect(text.stdout).toContain(`${LEGACY}: disabled (policy CERTSCHED_CERTIFICATE_POLICY[0])`);
    const doc = JSON.parse(json.stdout) as { certificates: WithWindow[] };
    const of = (name: string) => doc.certificates.find((c) => c.certificateName === name)?.window;
    expect(of(WAITS)?.state).toBe("waiting");
    expect(of(LEGACY)?.state).toBe("disabled");
  }, 30_000);
});
