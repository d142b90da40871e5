import { afterEach, describe, expect, it } from "vitest";
import { type Io, type OutputStream, terminalSafe } from "../../cli/io.js";
import { palette } from "../../cli/output/color.js";
import { formatExpiry } from "../../cli/output/expiry.js";
import { renderSweep } from "../../cli/output/sweepReport.js";
import { renderTable } from "../../cli/output/table.js";
import { visibleWidth } from "../../cli/output/text.js";
import { run } from "../../cli/run.js";
import {
  type CertificateResult,
  countOutcomes,
  type SweepSummary,
} from "../../shared/core/renewal/summary.js";
import { type Simulator, sandboxSettings, startSimulator } from "../../sim/index.js";
import { inDays } from "../support/cli.js";

/*
 * What only a terminal shows (colour, the progress line, cutting to the width) cannot be seen
 * through a child's pipes, so these run the CLI in-process with streams that say they are a TTY.
 */

const ESC = "\u001b[";
const ERASE_LINE = "\r\u001b[2K";
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

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

  it("fits a terminal by cutting the leading columns, target first; a pipe is never cut", () => {
    const columns = [
      { heading: "NAME", shrink: 1 },
      { heading: "TARGET", shrink: 2 },
      { heading: "OUTCOME" },
    ];
    const rows = [["a-rather-long-certificate-name", "Cloud Key Vault + DNS", "renewal-scheduled"]];
    const plain = { header: (s: string) => s };

    const fits = renderTable(columns, rows, { ...plain, width: 70 });
    const cut = renderTable(columns, rows, { ...plain, width: 50 });
    const whole = renderTable(columns, rows, { ...plain, width: undefined });

    // 30 + 2 + 21 + 2 + 17 = 72: two columns too wide for 70, taken from the target.
    expect(fits[1]).toBe("a-rather-long-certificate-name  Cloud Key Vault + …  renewal-scheduled");
    // 22 too wide for 50: the target down to 10, then the name.
    expect(cut[1]).toBe("a-rather-long-cert…  Cloud Key…  renewal-scheduled");
    expect(cut.every((line) => visibleWidth(line) <= 50)).toBe(true);
    expect(whole[1]).toBe(
      "a-rather-long-certificate-name  Cloud Key Vault + DNS  renewal-scheduled",
    );
  });

  it("pins the boundary: a table exactly as wide as the terminal is not cut, one column less is", () => {
    const columns = [{ heading: "NAME", shrink: 1 }, { heading: "X" }];
    const rows = [["abcdefghijklmnop", "x"]]; // 16 + 2 + 1 = 19 columns

    expect(renderTable(columns, rows, { header: (s) => s, width: 19 })[1]).toBe(
      "abcdefghijklmnop  x",
    );
    expect(renderTable(columns, rows, { header: (s) => s, width: 18 })[1]).toBe(
      "abcdefghijklmn…  x",
    );
  });

  it("renders 150,000 rows without overflowing the stack, every line within the width", () => {
    const rows = Array.from({ length: 150_000 }, (_, i) => [
      `cert-${i}`,
      "Cloud App Service",
      "ok",
    ]);
    const columns = [
      { heading: "CERTIFICATE", shrink: 1 },
      { heading: "TARGET" },
      { heading: "OUTCOME" },
    ];

    const lines = renderTable(columns, rows, { header: (s) => s, width: 40 });

    expect(lines).toHaveLength(150_001);
    expect(lines[150_000]).toBe("cert-149999  Cloud App Service  ok");
    expect(lines.every((line) => visibleWidth(line) <= 40)).toBe(true);
  });

  it("escapes control characters in cells: a name cannot start a line or drive the terminal", () => {
    const name = "evil\n\u001b]0;pwned\u0007\u001b[2Jname";
    const lines = renderTable([{ heading: "NAME" }], [[name]], { header: (s) => s, width: 200 });

    expect(lines).toHaveLength(2);
    expect(lines[1]).not.toMatch(CONTROL);
    expect(lines[1]).toContain("\\u{1b}]0;pwned");
  });
});

describe("certsched sandbox on a terminal", () => {
  it("wraps its banner to 80 columns; the settings stay one NAME=value per line", async () => {
    const t = io({}, { stdout: true, stderr: true }, 80);
    const interrupted: Io = { ...t.io, untilInterrupted: () => Promise.resolve("SIGTERM") };

    const code = await run(["sandbox"], interrupted);

    expect(code).toBe(0);
    const lines = t.stderr.text.split("\n"); // visibleWidth leaves colour codes out
    expect(lines.every((line) => visibleWidth(line) <= 80)).toBe(true);
    expect(lines.join(" ")).toContain(
      "Simulators of the Certificate Scheduling Service are listening, one per account",
    );
    expect(t.stdout.text).toMatch(/^CERTSCHED_ACCOUNTS=\[\{"name":"contoso",.*\}\]$/m);
  });
});

describe("palette", () => {
  const pipe = { isTTY: false, columns: undefined, write() {} };
  const tty = { isTTY: true, columns: 80, write() {} };

  it.each([
    [tty, {}, true],
    [pipe, {}, false],
    [pipe, { FORCE_COLOR: "1" }, true],
    [pipe, { FORCE_COLOR: "0" }, false],
    [pipe, { FORCE_COLOR: "false" }, false],
    [tty, { NO_COLOR: "1" }, false],
    [pipe, { FORCE_COLOR: "1", NO_COLOR: "1" }, false],
  ])("%o with %o: colour %s", (stream, env, enabled) => {
    expect(palette(stream, env).enabled).toBe(enabled);
    expect(palette(stream, env).red("x") === "x").toBe(!enabled);
  });
});

describe("renderSweep", () => {
  it("reports a sweep of 150,000 certificates, 1 in 1,000 failed, each cause in full, within 80 columns", () => {
    const results: CertificateResult[] = Array.from({ length: 150_000 }, (_, i) => ({
      certificateName: `cert-${String(i).padStart(6, "0")}`,
      id: i,
      target: i % 2 === 0 ? "Cloud App Service" : "Cloud Key Vault + DNS",
      expiryDate: new Date(Date.UTC(2026, 4, 1) + (i % 20) * 86_400_000).toISOString(),
      daysLeft: i % 20,
      ...(i % 1000 === 7
        ? {
            outcome: "failed" as const,
            reason: "SweepError" as const,
            detail: `renew certificate failed: the service answered 400: quota exceeded for ${i}`,
            status: 400,
          }
        : { outcome: "renewal-scheduled" as const, reason: "SweepError" as const, detail: "ok" }),
    }));
    const summary: SweepSummary = {
      dryRun: false,
      startedAt: new Date(0).toISOString(),
      durationMs: 1,
      ledger: "memory",
      results,
      rejected: [],
      counts: countOutcomes(results, 0),
      failed: true,
      problems: ["150 renewal(s) failed"],
    };

    const lines = renderSweep(
      summary,
      palette({ isTTY: false, columns: undefined, write() {} }, {}),
      80,
    );

    expect(lines.every((line) => visibleWidth(line) <= 80)).toBe(true);
    expect(lines.filter((line) => /^ {2}400: quota exceeded for \d+$/.test(line))).toHaveLength(
      150,
    );
    expect(lines.join(" ")).toContain(
      "150000 due: 149850 renewal-scheduled, 150 failed. Ledger: in memory, for this run only.",
    );
  });
});

describe("renderSweep causes", () => {
  const base = {
    target: "Cloud App Service",
    expiryDate: "2026-05-06T10:00:00.000Z",
    daysLeft: 5,
    reason: "SweepError" as const,
  };

  it("lists failures first, each cause on its own lines, then skips one line each; no cause for renewals", () => {
    const results: CertificateResult[] = [
      {
        ...base,
        certificateName: "later-skip",
        id: 1,
        outcome: "skipped",
        detail: "renewal requested 12 min ago",
      },
      {
        ...base,
        certificateName: "fine",
        id: 2,
        outcome: "renewal-scheduled",
        detail: "Certificate fine is scheduled.",
      },
      {
        ...base,
        certificateName: "broken",
        id: 3,
        outcome: "failed",
        status: 401,
        error: "UPSTREAM_UNAUTHORIZED",
        detail:
          "renew certificate failed: the service answered 401 (the service refused certsched's credentials): Authorization failed: unknown subscription id",
      },
    ];
    const summary: SweepSummary = {
      dryRun: false,
      startedAt: new Date(0).toISOString(),
      durationMs: 1,
      ledger: "memory",
      results,
      rejected: [],
      counts: countOutcomes(results, 0),
      failed: true,
      problems: ["1 renewal(s) failed: broken"],
    };

    const lines = renderSweep(
      summary,
      palette({ isTTY: false, columns: undefined, write() {} }, {}),
      undefined,
    );
    const below = lines.slice(lines.indexOf("") + 1, lines.indexOf("", lines.indexOf("") + 1));

    expect(below).toEqual([
      "broken failed:",
      "  401: Authorization failed: unknown subscription id",
      "  Check CERTSCHED_SUBSCRIPTION_ID: the service does not know that subscription id (it defaults to CERTSCHED_SUBSCRIPTION).",
      "later-skip skipped: renewal requested 12 min ago",
    ]);
  });
});

describe("terminalSafe (the last line of defence in cli/io.ts)", () => {
  it("keeps a --json document valid: what JSON.stringify leaves raw becomes a JSON escape", () => {
    const name = "a\u0085b\u2028c\u202ed\u007fe\u001bf";
    const document = terminalSafe(JSON.stringify({ name }, null, 2));

    expect(document).not.toMatch(CONTROL_BUT_NEWLINE);
    expect(document).not.toMatch(/[\u2028\u2029\u202a-\u202e]/);
    expect(JSON.parse(document)).toEqual({ name });
  });

  it("keeps newlines and our own colours and erase, escapes every other control sequence", () => {
    const ours = "\u001b[1mbold\u001b[22m \u001b[31mred\u001b[39m\r\u001b[2Kprogress\n";
    const theirs =
      "\u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007 \u001b[2J \u009b31m \r";

    expect(terminalSafe(ours)).toBe(ours);
    const safe = terminalSafe(theirs);
    expect(safe).not.toMatch(CONTROL_BUT_NEWLINE);
    expect(safe).toContain("\\u001b]8;;https://evil.example");
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
