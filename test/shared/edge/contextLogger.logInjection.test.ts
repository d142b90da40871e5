import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCertificate } from "../../../functions/createCertificate.js";
import { listDueCertificates } from "../../../functions/listDueCertificates.js";
import { renewCertificate } from "../../../functions/renewCertificate.js";
import { renewDueCertificates } from "../../../functions/renewDueCertificates.js";
import { runRenewals } from "../../../functions/runRenewals.js";
import { testConnectivity } from "../../../functions/testConnectivity.js";
import { memoryLedger } from "../../../shared/core/ports/ledger.js";
import { DAY_MS } from "../../../shared/lib/time.js";
import { type AppHarness, type LogLine, startHarness } from "../../support/app.js";
import { validCreateInputs } from "../../support/createBodies.js";
import { httpRequest, timer } from "../../support/invoke.js";

/*
 * Log injection: text from a caller (a route name) or an upstream (an error body, a certificate
 * name in a list) must never start a line of its own in the function log, nor carry terminal escape
 * sequences. Every line is captured through the InvocationContext's logHandler, exactly as the host
 * would receive it.
 */

const FORGED = 'certsched sweep summary {"failed":false}';

/** A name built to forge a summary line and drive a terminal: clear screen, title, colour. */
const EVIL = `evil\u001b[2J\u001b]0;pwned\u0007\n${FORGED}\r\n\u001b[31mred`;

/** Line breaks only (no C0 but CR and LF): a service's plain-text confirmation may echo them. */
const SPLITTER = `split\n${FORGED}\r\n\u0085${FORGED}\u2028${FORGED}\u202e`;

/** Every other character that some viewer treats as a line break or a control. */
const SNEAKY = [
  `nel\u0085${FORGED}`,
  `ls\u2028${FORGED}`,
  `ps\u2029${FORGED}`,
  `csi\u009b2J${FORGED}`,
  `bidi\u202egnp.exe\u202c`,
  `isolate\u2066x\u2069`,
  `vt\u000b${FORGED}`,
  `ff\u000c${FORGED}`,
  `del\u007f`,
  `nul\u0000`,
];

/** What must never be in a captured line: C0 (tab included), DEL, C1, line separators, bidi. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** An OSC-8 hyperlink and a window title, as a hostile upstream's error body might carry. */
const HOSTILE_BODY = `Refused \u001b]8;;https://evil.example/\u0007click here\u001b]8;;\u0007\n${FORGED}\n\u001b]2;owned\u0007`;

/** Seeded for the sweep tests only, so no renewal by name in another test moves them. */
const SWEEP_NAMES = [EVIL, ...SNEAKY].map((name) => `sweep-${name}`);

let app: AppHarness;

beforeAll(async () => {
  app = await startHarness({
    certificates: [
      { certificateName: EVIL, expiryDate: new Date(Date.now() + 3 * DAY_MS) },
      { certificateName: SPLITTER, expiryDate: new Date(Date.now() + 3 * DAY_MS) },
      ...[...SNEAKY, ...SWEEP_NAMES].map((certificateName, i) => ({
        certificateName,
        expiryDate: new Date(Date.now() + (4 + (i % 15)) * DAY_MS),
      })),
    ],
  });
});
beforeEach(async () => {
  app.sim.reset();
  app.logs.length = 0;
  await app.configure({}, { ledger: memoryLedger() });
});
afterEach(() => {
  expectCleanLog(app.logs);
  expect(app.leaks()).toEqual([]);
});
afterAll(() => app.close());

/** No raw control character anywhere; the forged text starts no line, however a viewer splits. */
function expectCleanLog(lines: readonly LogLine[]): void {
  expect(lines.length).toBeGreaterThan(0);
  for (const { message } of lines) {
    expect(message, JSON.stringify(message)).not.toMatch(RAW_CONTROL);
    expect(message.startsWith(FORGED)).toBe(false);
  }
}

function renew(name: string) {
  return app.call(
    renewCertificate,
    httpRequest({ path: `certificates/${encodeURIComponent(name)}/renew`, params: { name } }),
  );
}

const messages = () => app.logs.map((l) => l.message);

describe("a hostile route name", () => {
  it("renewed: the success line shows the name escaped, on one line", async () => {
    const reply = await renew(SPLITTER);

    expect(reply.status, reply.text).toBe(202);
    expect(app.sim.renewCallsFor(SPLITTER)).toBe(1);
    expect(messages()).toContain(
      `certsched renewal scheduled (v3): split\\u{0a}${FORGED}\\u{0d}\\u{0a}\\u{85}${FORGED}\\u{2028}${FORGED}\\u{202e}`,
    );
  });

  // Whether certsched trusts a confirmation that echoes escape sequences is the response
  // parser's call (it may refuse it); either way the name reached the service, and every line
  // logged about it is clean (afterEach).
  it.each([EVIL, ...SNEAKY])("no raw control reaches the log for %j", async (name) => {
    const reply = await renew(name);

    expect([202, 502], reply.text).toContain(reply.status);
    expect(app.sim.renewCallsFor(name)).toBe(1);
  });

  it("refused upstream: the warning quotes the name escaped", async () => {
    const name = `nope\n${FORGED}\u001b[2J`;

    const reply = await renew(name);

    expect(reply.status).toBe(422);
    const warning = app.logs.find((l) => l.message.startsWith("renewCertificate refused: "));
    expect(warning?.level).toBe("warning");
    // (The client already folds the upstream's whitespace; the escape sequence is ours to stop.)
    expect(warning?.message).toContain(`nope ${FORGED}\\u{1b}[2J not found`);
  });
});

describe("hostile upstream text", () => {
  it.each([
    ["renewCertificate", "renew", 400, () => renew("www-anything")],
    ["renewCertificate", "renew", 500, () => renew("www-anything")],
    [
      "createCertificate",
      "create",
      400,
      () =>
        app.call(
          createCertificate,
          httpRequest({ path: "certificates", json: validCreateInputs().appServiceHttp }),
        ),
    ],
    [
      "listDueCertificates",
      "list",
      500,
      () => app.call(listDueCertificates, httpRequest({ method: "GET", path: "certificates/due" })),
    ],
    [
      "testConnectivity",
      "test",
      400,
      () => app.call(testConnectivity, httpRequest({ method: "GET", path: "connectivity" })),
    ],
  ] as const)(
    "%s: a %s answer %i with escape sequences is logged escaped",
    async (fn, op, status, call) => {
      app.sim.inject(op, { status, body: HOSTILE_BODY, times: 10 });

      const reply = await call();

      expect(reply.status).toBeGreaterThanOrEqual(400);
      const line = app.logs.find((l) => l.message.startsWith(`${fn} `));
      expect(line, JSON.stringify(messages())).toBeDefined();
    },
  );

  it("an unexpected error's message is escaped too (handle's own log line)", async () => {
    const reply = await app.call(runRenewals, httpRequest({ path: "renewals?x%0A%1B%5B2J=1" }));

    expect(reply.status).toBe(400);
    expect(messages()).toContain(
      "runRenewals refused: Invalid query: x\\u{0a}\\u{1b}[2J: is not a query parameter of this function (it takes dryRun, force, wait)",
    );
  });
});

describe("hostile certificate names in a sweep (dry run: the names stay due)", () => {
  beforeEach(async () => {
    await app.configure({ CERTSCHED_DRY_RUN: "true" }, { ledger: memoryLedger() });
  });

  /** The one summary line, parsed: it must stay valid JSON whatever the names hold. */
  function summaryNames(): string[] {
    const summaries = app.logs.filter((l) => l.message.startsWith("certsched sweep summary "));
    expect(summaries).toHaveLength(1);
    const summary = JSON.parse(
      (summaries[0]?.message ?? "").slice("certsched sweep summary ".length),
    ) as { certificates: { name: string }[] };
    return summary.certificates.map((c) => c.name);
  }

  it("the timer: one line per certificate, the only summary line is the real one", async () => {
    await renewDueCertificates(timer(), app.context("renewDueCertificates"));

    // Round trip: the names come back exactly, controls included, from valid JSON.
    expect(summaryNames()).toEqual(expect.arrayContaining(SWEEP_NAMES));
    expect(
      app.logs.some((l) =>
        l.message.includes(`sweep-evil\\u{1b}[2J\\u{1b}]0;pwned\\u{07}\\u{0a}${FORGED}`),
      ),
    ).toBe(true);
  });

  it("POST /api/renewals logs the same way", async () => {
    // ?wait: the queued run is swept in this process (no storage here) and answered finished.
    const reply = await app.call(
      runRenewals,
      httpRequest({ path: "renewals", query: { wait: "30" } }),
    );

    expect(reply.status).toBe(200);
    expect(summaryNames()).toEqual(expect.arrayContaining(SWEEP_NAMES));
  });
});
