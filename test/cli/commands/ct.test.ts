import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMON_OPTIONS } from "../../../cli/command.js";
import { ctCommandWith } from "../../../cli/commands/ct.js";
import { reportFailure } from "../../../cli/failure.js";
import type { Io, OutputStream } from "../../../cli/io.js";
import { visibleWidth } from "../../../cli/output/text.js";
import { parseCommandArgs } from "../../../cli/usage.js";
import { noTransparencyStore } from "../../../shared/adapters/storage/memory/memoryTransparency.js";
import { type History, memoryHistory } from "../../../shared/core/ports/history.js";
import type { TransparencyStore } from "../../../shared/core/ports/transparency.js";
import { type SimAccounts, startSimAccounts } from "../../support/accounts.js";
import {
  expectedByKey,
  hoursAfter,
  pendingFor,
  seen,
  storeWith,
  unexpected,
} from "../../support/issuances.js";

/*
 * certsched ct and ct ack in-process, the issuances in memory through the seam (the watch that
 * fills the store has its own suite): the tables, colours and escaping a person sees, the JSON a
 * script reads, the exit codes, the acknowledgement and its history event. Two declared
 * accounts, whose services are never called.
 */

const N = "north";
const S = "south";
const NOW = hoursAfter(10);
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
const ESC = "\u001b";

let accounts: SimAccounts;
beforeAll(async () => {
  accounts = await startSimAccounts([N, S]);
});
afterAll(async () => {
  await accounts?.close();
});

const items = () => [
  seen({ account: N, id: "n-open", hours: 6 }),
  seen({ account: N, id: "n-fine", hours: 1, verdict: expectedByKey("www") }),
  seen({
    account: N,
    id: "n-www",
    hours: 2,
    watched: "www.contoso.example",
    verdict: pendingFor("www"),
    issuance: { revoked: true },
  }),
  seen({
    account: N,
    id: "n-done",
    hours: 3,
    acknowledged: { at: hoursAfter(4), by: "cli", reason: "<b>our</b> staging & test CA" },
    issuance: { notAfter: hoursAfter(9) },
  }),
  seen({ account: S, id: "s-open", hours: 5, watched: "fabrikam.example" }),
];

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

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

interface World {
  transparency?: TransparencyStore;
  history?: (account: string) => History;
  many?: boolean;
  env?: Record<string, string>;
  columns?: number;
}

/** `certsched ct <argv>` as cli/run.ts runs a command: failures reported the same way. */
async function ct(argv: readonly string[], world: World = {}): Promise<Ran> {
  const transparency = world.transparency ?? (await storeWith(items()));
  const command = ctCommandWith({
    seams: {
      transparency,
      history: world.history ?? (() => memoryHistory()),
      now: () => NOW,
    },
  });
  const declared = accounts.declarations();
  const stdout = capture(world.columns);
  const stderr = capture(world.columns);
  const io: Io = {
    env: {
      NO_COLOR: "1",
      CERTSCHED_ACCOUNTS: JSON.stringify(world.many === false ? declared.slice(0, 1) : declared),
      ...world.env,
    },
    cwd: "/nonexistent-certsched-test-dir",
    stdout,
    stderr,
    untilInterrupted: () => new Promise(() => {}),
  };
  let code: number;
  try {
    const options = { ...command.options, ...COMMON_OPTIONS };
    const args = parseCommandArgs("ct", argv, options, command.maxPositionals);
    code = await command.run(args, io);
  } catch (error) {
    code = reportFailure(error, io, { json: argv.includes("--json"), command: "ct" });
  }
  const ran = { code, stdout: stdout.text, stderr: stderr.text };
  for (const secret of accounts.secrets()) expect(ran.stdout + ran.stderr).not.toContain(secret);
  for (const { sim } of accounts.accounts) expect(sim.requests).toEqual([]);
  return ran;
}

const lines = (text: string) => text.split("\n");

describe("certsched ct", () => {
  it("a table per account and watched name, newest first; an unexpected one listed exits 1", async () => {
    const ran = await ct([]);

    expect(ran.code).toBe(1);
    const out = lines(ran.stdout);
    const headings = out.filter((l) => /^(north|south): /.test(l));
    expect(headings).toEqual([
      "north: contoso.example",
      "south: fabrikam.example",
      "north: www.contoso.example",
    ]);
    expect(out[1]).toMatch(/^ID\s+STATE\s+NAMES\s+ISSUER\s+VALID\s+WHY$/);
    // contoso.example's three, newest first, each state in words.
    const rows = out.filter((l) => /^n-(open|done|fine) /.test(l));
    expect(rows.map((r) => r.split(/\s{2,}/)[0])).toEqual(["n-open", "n-done", "n-fine"]);
    expect(rows[0]).toContain("unexpected");
    expect(rows[0]).toContain("2026-11-20..2027-02-18");
    expect(rows[1]).toContain("acknowledged, expired");
    expect(out.find((l) => l.startsWith("n-www"))).toContain("pending, revoked");
    // Each unexpected one in full under the tables, with where to look.
    expect(ran.stdout).toContain(
      `issuance n-open for "contoso.example" of account "north": www.contoso.example by C=US, O=Let's Encrypt, CN=R11, valid 2026-11-20T07:00:00Z to 2027-02-18T07:00:00Z: no certificate certsched keeps has its public key (https://crt.sh/?sha256=${"a".repeat(64)})`,
    );
    expect(ran.stdout).toContain(
      "5 issuances: 2 unexpected, 1 acknowledged, 1 pending, 1 expected. Look at each unexpected one; when it is no concern: certsched ct ack ID --reason TEXT --account NAME",
    );
    expect(ran.stderr).toBe("");
  });

  it("none unexpected: exit 0; --state and --since narrow, the summary follows", async () => {
    const acknowledged = await ct(["--state", "acknowledged"]);
    expect(acknowledged.code).toBe(0);
    expect(acknowledged.stdout).toContain("n-done");
    expect(acknowledged.stdout).not.toContain("n-open");
    expect(acknowledged.stdout).toContain("1 issuance: 1 acknowledged.");

    const recent = await ct(["--since", "2026-11-20T12:30:00Z", "--account", N]);
    expect(recent.code).toBe(1);
    expect(recent.stdout).toContain("n-open");
    expect(recent.stdout).not.toContain("n-done");

    const none = await ct(["--since", "1h"]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe("No Certificate Transparency issuances kept since 1h.\n");
  });

  it("--json: one document of IssuanceViews, the counts, exit 1 with an unexpected one", async () => {
    const ran = await ct(["--json", "--account", S]);

    expect(ran.code).toBe(1);
    expect(JSON.parse(ran.stdout)).toEqual({
      issuances: [
        expect.objectContaining({ account: S, id: "s-open", state: "unexpected", revoked: false }),
      ],
      counts: { expected: 0, pending: 0, unexpected: 1, acknowledged: 0 },
    });
  });

  it("unexpected lines are red on a terminal (FORCE_COLOR), and every line fits its width", async () => {
    const ran = await ct([], { env: { NO_COLOR: "", FORCE_COLOR: "1" }, columns: 80 });

    const open = lines(ran.stdout).find((l) => l.includes("n-open") && l.includes("unexpected"));
    expect(open).toContain(`${ESC}[31m`);
    const fine = lines(ran.stdout).find((l) => l.includes("n-fine"));
    expect(fine).not.toContain(`${ESC}[31m`);
    for (const line of lines(ran.stdout)) expect(visibleWidth(line)).toBeLessThanOrEqual(80);
  });

  it("text from elsewhere is escaped: no control character reaches the terminal", async () => {
    const forged = await storeWith([
      seen({
        account: N,
        id: "n-forged",
        watched: "contoso.example",
        verdict: unexpected(`no key matches\n${ESC}]0;owned${"\u0007"}`),
        issuance: {
          issuer: `Evil CA${ESC}[2J\r\nfake line`,
          dnsNames: ["a\u009b31mb.contoso.example", "www.contoso.example\u202e"],
        },
      }),
    ]);
    const text = await ct([], { transparency: forged });
    const json = await ct(["--json"], { transparency: forged });

    expect(text.stdout).not.toMatch(CONTROL_BUT_NEWLINE);
    expect(text.stdout).not.toContain("\u202e");
    expect(text.stdout).toContain("Evil CA\\u{1b}[2J\\u{0d}\\u{0a}fake line");
    expect(lines(text.stdout).some((l) => l.startsWith("fake line"))).toBe(false);
    // JSON keeps the text as it is, every control character and direction mark a \u escape.
    expect(json.stdout).not.toMatch(CONTROL_BUT_NEWLINE);
    expect(json.stdout).not.toContain("\u202e");
    const [view] = (JSON.parse(json.stdout) as { issuances: { issuer: string; names: string[] }[] })
      .issuances;
    expect(view?.issuer).toBe(`Evil CA${ESC}[2J\r\nfake line`);
    expect(view?.names).toEqual(["a\u009b31mb.contoso.example", "www.contoso.example\u202e"]);
  });

  it("a reason written in HTML is shown as text", async () => {
    const ran = await ct(["--json", "--state", "acknowledged"]);
    const [view] = (JSON.parse(ran.stdout) as { issuances: { acknowledged: unknown }[] }).issuances;

    expect(view?.acknowledged).toEqual({
      at: "2026-11-20T12:00:00Z",
      by: "cli",
      reason: "<b>our</b> staging & test CA",
    });
  });

  it.each([
    [["--state", "open"], "--state must be one of expected, pending, unexpected, acknowledged"],
    [["--since", "2026-02-30"], "--since must be a date (2026-01-31)"],
    [["--reason", "x"], "--reason is for certsched ct ack"],
    [["list"], 'unknown subcommand "list"'],
    [["--account", "west"], "--account 'west' is unknown"],
  ])("%j is a usage error (exit 2)", async (argv, message) => {
    const ran = await ct(argv);

    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe("");
    expect(ran.stderr).toContain(message);
  });

  it("one account unreadable: the other's issuances, the failure named, exit 1", async () => {
    const store = await storeWith(items().filter((i) => i.verdict.kind !== "unexpected"));
    const ran = await ct([], {
      transparency: {
        ...store,
        list: async (account, options) => {
          if (account === S) throw new Error("table timed out");
          return store.list(account, options);
        },
      },
    });

    expect(ran.code).toBe(1);
    expect(ran.stdout).toContain("n-fine");
    expect(ran.stderr).toContain(`account ${S}: unexpected error: table timed out`);
  });

  it("no storage for it: says so, lists nothing, exit 0", async () => {
    const ran = await ct([], { transparency: noTransparencyStore, many: false });

    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe("No Certificate Transparency issuances kept.\n");
    expect(ran.stderr).toContain(
      "no storage for Certificate Transparency issuances is configured: nothing to list",
    );
    const ack = await ct(["ack", "n-open", "--reason", "x"], {
      transparency: noTransparencyStore,
      many: false,
    });
    expect(ack.code).toBe(1);
    expect(ack.stderr).toContain("no storage for Certificate Transparency issuances is configured");
  });
});

describe("certsched ct ack", () => {
  async function acked(argv: readonly string[], many = true) {
    const transparency = await storeWith(items());
    const histories = new Map<string, History>();
    const history = (account: string) => {
      const kept = histories.get(account) ?? memoryHistory();
      histories.set(account, kept);
      return kept;
    };
    const ran = await ct(["ack", ...argv], { transparency, history, many });
    const events = async (account: string) =>
      (await history(account).events({ since: new Date(0) })).items;
    return { ran, transparency, events };
  }

  it("acknowledges an unexpected issuance (exit 0): kept, and recorded as the CLI's", async () => {
    const { ran, transparency, events } = await acked([
      "n-open",
      "--reason",
      "our own test <certificate>",
      "--account",
      N,
    ]);

    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe(
      'Acknowledged issuance n-open for "contoso.example": our own test <certificate>\n',
    );
    expect((await transparency.get(N, "n-open"))?.acknowledged).toEqual({
      at: NOW,
      by: "cli",
      reason: "our own test <certificate>",
    });
    expect(await events(N)).toEqual([
      expect.objectContaining({
        event: "issuance-acknowledged",
        certificateName: "ct:contoso.example",
        by: "cli",
        trigger: "cli",
        detail: expect.stringContaining("our own test <certificate>; issuance n-open"),
      }),
    ]);
    expect(await events(S)).toEqual([]);
  });

  it("--json answers the status and the issuance; acknowledged before: exit 0, first reason kept", async () => {
    const { ran, events } = await acked(["n-done", "--reason", "again", "--account", N, "--json"]);

    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({
      status: "already-acknowledged",
      account: N,
      issuance: { id: "n-done", acknowledged: { reason: "<b>our</b> staging & test CA" } },
    });
    expect(await events(N)).toEqual([]);
  });

  it.each([
    [["n-fine", "--reason", "x", "--account", N], "is expected: only an unexpected issuance"],
    [["n-www", "--reason", "x", "--account", N], "is pending: only an unexpected issuance"],
    [["s-open", "--reason", "x", "--account", N], 'account "north" keeps no issuance s-open'],
  ])("%j: exit 1, nothing kept", async (argv, message) => {
    const { ran, transparency, events } = await acked(argv);

    expect(ran.code).toBe(1);
    expect(ran.stdout).toBe("");
    expect(ran.stderr).toContain(message);
    expect((await transparency.get(S, "s-open"))?.acknowledged).toBeUndefined();
    expect(await events(N)).toEqual([]);
  });

  it.each([
    [["n-open", "--account", N], "ct ack needs --reason TEXT"],
    [["--reason", "x", "--account", N], "ct ack needs the issuance's ID"],
    [["n/open", "--reason", "x", "--account", N], "id: must be 1 to 40 characters"],
    [["n-open", "--reason", "", "--account", N], "reason: must be 1 to 500 characters"],
    [["n-open", "--reason", "x", "--since", "1d", "--account", N], "are for the list"],
    [["n-open", "--reason", "x"], "ct acts on one account: name it with --account NAME"],
  ])("%j: a usage error (exit 2), nothing kept", async (argv, message) => {
    const { ran, transparency } = await acked(argv);

    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain(message);
    expect((await transparency.get(N, "n-open"))?.acknowledged).toBeUndefined();
  });

  it("a forged reason is refused (exit 2) and never echoed, raw or escaped", async () => {
    const { ran, transparency } = await acked([
      "n-open",
      "--reason",
      `fine${ESC}]0;owned\u0007\nforged line`,
      "--account",
      N,
    ]);

    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("reason: must hold no control characters");
    expect(ran.stdout + ran.stderr).not.toMatch(CONTROL_BUT_NEWLINE);
    expect(ran.stdout + ran.stderr).not.toContain("forged line");
    expect((await transparency.get(N, "n-open"))?.acknowledged).toBeUndefined();
  });

  it("one account declared: no --account needed", async () => {
    const { ran } = await acked(["n-open", "--reason", "fine"], false);
    expect(ran.code).toBe(0);
  });
});
