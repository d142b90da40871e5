import { afterEach, describe, expect, it } from "vitest";
import type { Io, OutputStream } from "../../cli/io.js";
import { formatExpiry } from "../../cli/output/expiry.js";
import { renderTable } from "../../cli/output/table.js";
import { run } from "../../cli/run.js";
import { type Simulator, sandboxSettings, startSimulator } from "../../sim/index.js";
import { inDays } from "./helpers.js";

/*
 * What only a terminal shows (colour, the progress line, cutting to the width) cannot be seen
 * through a child's pipes, so these run the CLI in-process with streams that say they are a TTY.
 */

const ESC = "\u001b[";
const ERASE_LINE = "\r\u001b[2K";

interface Captured extends OutputStream {
  text: string;
}

function capture(isTTY: boolean, columns?: number): Captured {
  const stream = {
    text: "",
    isTTY,
    columns,
    write(chunk: string) {
      stream.text += chunk;
    },
  };
  return stream;
}

function io(env: Record<string, string>, tty: { stdout: boolean; stderr: boolean }, columns = 200) {
  const stdout = capture(tty.stdout, tty.stdout ? columns : undefined);
  const stderr = capture(tty.stderr, tty.stderr ? columns : undefined);
  const value: Io = {
    env,
    cwd: "/nonexistent-certsched-test-dir",
    stdout,
    stderr,
    untilInterrupted: () => new Promise(() => {}),
  };
  return { io: value, stdout, stderr };
}

let sim: Simulator;
afterEach(() => sim?.close());

describe("on a terminal", () => {
  it("shows a progress line on stderr during a sweep and erases it at the end", async () => {
    sim = await startSimulator({
      certificates: [
        { certificateName: "one", expiryDate: inDays(2) },
        { certificateName: "two", expiryDate: inDays(3) },
      ],
    });
    const t = io(sandboxSettings(sim), { stdout: true, stderr: true });

    const code = await run(["sweep"], t.io);

    expect(code).toBe(0);
    expect(t.stderr.text).toContain(`${ERASE_LINE}certsched: listing the certificates due...`);
    expect(t.stderr.text).toMatch(/\[1\/2\] (one|two): renewal-scheduled/);
    expect(t.stderr.text).toMatch(/\[2\/2\] (one|two): renewal-scheduled/);
    expect(t.stderr.text.endsWith(ERASE_LINE)).toBe(true);
  });

  it("colours outcomes and headings on a TTY, and not with NO_COLOR or in a pipe", async () => {
    sim = await startSimulator({
      certificates: [{ certificateName: "one", expiryDate: inDays(2) }],
    });
    const tty = io(sandboxSettings(sim), { stdout: true, stderr: true });
    const noColor = io({ ...sandboxSettings(sim), NO_COLOR: "1" }, { stdout: true, stderr: true });
    const pipe = io(sandboxSettings(sim), { stdout: false, stderr: false });

    await run(["sweep", "--dry-run"], tty.io);
    await run(["sweep", "--dry-run"], noColor.io);
    await run(["sweep", "--dry-run"], pipe.io);

    expect(tty.stdout.text).toContain(`${ESC}1mCERTIFICATE`);
    expect(tty.stdout.text).toContain(`${ESC}36mwould-renew`);
    // A certificate with two days left is flagged.
    expect(tty.stdout.text).toContain(
      `${ESC}33m${sim.certificates()[0]?.expiryDate.toISOString().slice(0, 10)} (1 day left)`,
    );
    expect(noColor.stdout.text).not.toContain(ESC);
    expect(pipe.stdout.text).not.toContain(ESC);
    expect(pipe.stderr.text).not.toContain(ERASE_LINE);
    // The progress line is not colour: NO_COLOR keeps it.
    expect(noColor.stderr.text).toContain(ERASE_LINE);
  });

  it("cuts the last column to the terminal width, never a pipe's output", () => {
    const rows = [["a", "a long detail that does not fit"]];
    const cut = renderTable(["NAME", "DETAIL"], rows, { header: (s) => s, width: 20 });
    const whole = renderTable(["NAME", "DETAIL"], rows, { header: (s) => s, width: undefined });

    expect(cut).toEqual(["NAME  DETAIL", "a     a long detail…"]);
    expect(cut.every((line) => line.length <= 20)).toBe(true);
    expect(whole[1]).toBe("a     a long detail that does not fit");
  });
});

describe("formatExpiry", () => {
  it.each([
    ["2026-05-06T10:00:00.000Z", 5, "2026-05-06 (5 days left)"],
    ["2026-05-06T23:59:59.999Z", 1, "2026-05-06 (1 day left)"],
    ["2026-05-06T00:00:00.000Z", 0, "2026-05-06 (0 days left)"],
    ["2026-05-06T10:00:00.000Z", -1, "2026-05-06 (expired)"],
    ["2026-05-06T10:00:00.000Z", -2, "2026-05-06 (expired 1 day ago)"],
    ["2026-05-06T10:00:00.000Z", -31, "2026-05-06 (expired 30 days ago)"],
  ])("%s with %i days left reads %s", (iso, days, expected) => {
    expect(formatExpiry(iso, days)).toBe(expected);
  });
});
