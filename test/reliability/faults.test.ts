import type { HttpRequest, HttpResponseInit, InvocationContext } from "@azure/functions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCertificate } from "../../functions/createCertificate.js";
import { listDueCertificates } from "../../functions/listDueCertificates.js";
import { renewCertificate } from "../../functions/renewCertificate.js";
import { renewDueCertificates } from "../../functions/renewDueCertificates.js";
import { testConnectivity } from "../../functions/testConnectivity.js";
import { createSecretClientReader } from "../../shared/adapters/identity/secretClientReader.js";
import { loadSettings } from "../../shared/app/config/settings.js";
import type { Seams } from "../../shared/app/seams.js";
import { createAccountPorts } from "../../shared/app/services.js";
import { type Ledger, memoryLedger } from "../../shared/core/ports/ledger.js";
import { resultLine, type SweepSummary } from "../../shared/core/renewal/summary.js";
import { SweepFailedError } from "../../shared/lib/errors.js";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../../shared/lib/time.js";
import { sweep as runSweep } from "../../shared/usecases/sweep/sweep.js";
import {
  type Fault,
  type SimOperation,
  type Simulator,
  toCertificateRecord,
} from "../../sim/index.js";
import { closedPort, configureApp, releaseApp } from "../support/app.js";
import { type AzuriteHandle, startAzurite } from "../support/azurite.js";
import { type FakeClock, fakeClock } from "../support/clock.js";
import { type FakeKeyVault, startFakeKeyVault, stubCredential } from "../support/fakeKeyVault.js";
import { httpRequest, timer } from "../support/invoke.js";
import { type Reply, toReply } from "../support/reply.js";
import { Capture } from "./support/capture.js";
import { dueCertificates, settingsFor, startSim } from "./support/staging.js";
import { reportTally } from "./support/tally.js";

/*
 * The fault matrix: for each operation a sweep depends on (list, public renew, token endpoint,
 * Key Vault, ledger) and each way it can misbehave, one sweep over DUE certificates, then a
 * recovery sweep once the fault is gone and the grace window has passed. Asserted every time:
 * each due certificate has exactly one result with the expected outcome (the cause named when
 * it failed), the service never saw a second renewal of any certificate, the run is failed
 * exactly when it must be, each message is one line naming the cause, and nothing secret leaked.
 */

const DUE = 4;
/** Per attempt. Far above a loopback round trip even on a busy 2-core machine. */
const TIMEOUT = "1s";
/** A hang: longer than the timeout, so the client gives up first. */
const HANG_MS = 2_500;
const GRACE_MS = 2 * HOUR_MS;
/** The service completes a renewal this long after accepting it (spec: within an hour). */
const COMPLETION_MS = 45 * MINUTE_MS;

interface World {
  readonly sim: Simulator;
  readonly clock: FakeClock;
  /** certsched's environment; a case may change it before (or to recover after) the sweep. */
  settings: Record<string, string>;
  /** Memory ledger by default; undefined lets AzureWebJobsStorage decide. */
  ledger: Ledger | undefined;
  createSecretReader?: Seams["createSecretReader"];
  vault?: FakeKeyVault;
  azurite?: AzuriteHandle;
}

/** How the first sweep must end. Default: every due certificate renewed, run not failed. */
interface Expectation {
  /** The list fails; nothing is renewed; the run fails naming this. */
  readonly listFails?: RegExp;
  /** This many due certificates fail (the rest are renewed), each naming the cause. */
  readonly renewFails?: { readonly count: number | "all"; readonly cause: RegExp };
  /** Records the list answered but certsched could not use: reported as failed. */
  readonly rejected?: number;
  /** The run fails for this reason (with renewFails or notAttempted, or on its own). */
  readonly runFails?: RegExp;
  /**
   * Every due certificate is reported not-attempted for this reason: the sweep started no
   * renewal (a ledger that is down: renewing without it could order renewals twice).
   */
  readonly notAttempted?: "LedgerUnavailable";
}

interface Case {
  readonly op: SimOperation | "keyVault" | "ledger";
  readonly fault: string;
  arrange(world: World): void | Promise<void>;
  readonly expect: Expectation;
  /** Waits for work a fault deferred (a slow answer the service still acts on). */
  settle?(world: World): Promise<void>;
  /** Removes the fault for the recovery sweep; default: clear the simulator's faults. */
  recover?(world: World): void | Promise<void>;
  /**
   * The ledger could not record this sweep's renewals, so a sweep within the grace window
   * would ask again (by design: renewing beats not renewing; the timer runs daily). The
   * within-grace sweep is left out.
   */
  readonly ledgerLost?: boolean;
  /** Calls of `op` beyond a healthy sweep's: proves the fault was met (and retried). */
  readonly extraCalls?: "some" | "none";
}

const inject =
  (op: SimOperation, fault: Fault | ((world: World) => Fault)) =>
  (world: World): void =>
    world.sim.inject(op, typeof fault === "function" ? fault(world) : fault);

const ONCE = { times: 1 } as const;
const ALWAYS = { times: Number.POSITIVE_INFINITY } as const;
const HTML_PAGE =
  "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>";

/** The usual transient faults, each met once: one retry must absorb it. */
function transient(op: SimOperation): Case[] {
  const faults: [string, Fault | ((world: World) => Fault)][] = [
    ["500 once", { status: 500, body: "Internal Server Error", ...ONCE }],
    ["502 once", { status: 502, body: "Bad Gateway", ...ONCE }],
    ["503 once", { status: 503, body: "Service Unavailable", ...ONCE }],
    ["504 once", { status: 504, body: "Gateway Timeout", ...ONCE }],
    ['429 Retry-After "0" once', { status: 429, headers: { "retry-after": "0" }, ...ONCE }],
    ['429 Retry-After "1" once', { status: 429, headers: { "retry-after": "1" }, ...ONCE }],
    [
      "429 Retry-After as an HTTP date once",
      (world) => ({
        status: 429,
        headers: { "retry-after": new Date(world.clock.now().getTime() + 1_000).toUTCString() },
        ...ONCE,
      }),
    ],
    ["connection reset once", { reset: true, ...ONCE }],
    [
      "HTML error page from a gateway once",
      { status: 502, headers: { "content-type": "text/html" }, body: HTML_PAGE, ...ONCE },
    ],
  ];
  return faults.map(([fault, f]) => ({ op, fault, arrange: inject(op, f), expect: {} }));
}

const FAILED_5XX = /answered 500/;
const RESET = /connection closed by the other side|ECONNRESET|UND_ERR_SOCKET/;
const TIMED_OUT = /no answer within the timeout/;
const HTML_TITLE = /answered 502: HTML page "502 Bad Gateway"/;

const listCases: Case[] = [
  ...transient("list"),
  {
    op: "list",
    fault: "hang past the timeout once",
    arrange: inject("list", { delayMs: HANG_MS, ...ONCE }),
    expect: {},
  },
  {
    op: "list",
    fault: "503 persistent",
    arrange: inject("list", { status: 503, body: "Service Unavailable", ...ALWAYS }),
    expect: { listFails: /answered 503/ },
  },
  {
    op: "list",
    fault: '429 Retry-After "0" persistent',
    arrange: inject("list", { status: 429, headers: { "retry-after": "0" }, ...ALWAYS }),
    expect: { listFails: /answered 429/ },
  },
  {
    op: "list",
    fault: "connection reset persistent",
    arrange: inject("list", { reset: true, ...ALWAYS }),
    expect: { listFails: RESET },
  },
  {
    op: "list",
    fault: "hang past the timeout persistent",
    arrange: inject("list", { delayMs: HANG_MS, ...ALWAYS }),
    expect: { listFails: TIMED_OUT },
  },
  {
    op: "list",
    fault: "HTML error page persistent",
    arrange: inject("list", {
      status: 502,
      headers: { "content-type": "text/html; charset=utf-8" },
      body: HTML_PAGE,
      ...ALWAYS,
    }),
    expect: { listFails: HTML_TITLE },
  },
  {
    op: "list",
    fault: "malformed JSON (200)",
    arrange: inject("list", {
      status: 200,
      headers: { "content-type": "application/json" },
      body: '[{"certificateName":"due-1","id":1,',
      ...ONCE,
    }),
    expect: { listFails: /answered 200 with malformed JSON/ },
    extraCalls: "none",
  },
  {
    op: "list",
    fault: "JSON that is not an array (200)",
    arrange: inject("list", {
      status: 200,
      headers: { "content-type": "application/json" },
      body: '{"certificates":[]}',
      ...ONCE,
    }),
    expect: { listFails: /JSON that is not an array/ },
    extraCalls: "none",
  },
  {
    op: "list",
    fault: "one invalid record among valid ones",
    arrange: (world) => {
      const records = world.sim
        .certificates()
        .filter((c) => c.expiryDate.getTime() < world.clock.now().getTime() + 20 * DAY_MS)
        .map(toCertificateRecord);
      const [first, ...rest] = records;
      world.sim.inject("list", {
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify([{ ...first, expiryDate: "not a date" }, ...rest]),
        ...ONCE,
      });
    },
    // The invalid record is reported (counted failed), not dropped; the others are renewed.
    expect: { rejected: 1 },
    extraCalls: "none",
  },
];

const renewCases: Case[] = [
  ...transient("publicRenew"),
  {
    op: "publicRenew",
    fault: "hang past the timeout once, the service acts on it late",
    arrange: inject("publicRenew", { delayMs: HANG_MS, ...ONCE }),
    // Not retried: a second renew could order a second certificate. Reported failed; the
    // ledger keeps it within the grace window, so the recovery sweep does not ask again.
    expect: { renewFails: { count: 1, cause: TIMED_OUT } },
    settle: async ({ sim }) => {
      await expect
        .poll(() => renewCallsTotal(sim), { timeout: HANG_MS * 3, interval: 50 })
        .toBe(DUE);
    },
    extraCalls: "none",
  },
  {
    op: "publicRenew",
    fault: "hang past the timeout once, never answered",
    arrange: inject("publicRenew", { delayMs: HANG_MS, reset: true, ...ONCE }),
    expect: { renewFails: { count: 1, cause: TIMED_OUT } },
    extraCalls: "none",
  },
  {
    op: "publicRenew",
    fault: "500 persistent",
    arrange: inject("publicRenew", { status: 500, body: "Internal Server Error", ...ALWAYS }),
    expect: { renewFails: { count: "all", cause: FAILED_5XX } },
  },
  {
    op: "publicRenew",
    fault: '503 Retry-After "0" persistent',
    arrange: inject("publicRenew", { status: 503, headers: { "retry-after": "0" }, ...ALWAYS }),
    expect: { renewFails: { count: "all", cause: /answered 503/ } },
  },
  {
    op: "publicRenew",
    fault: "connection reset persistent",
    arrange: inject("publicRenew", { reset: true, ...ALWAYS }),
    expect: { renewFails: { count: "all", cause: RESET } },
  },
  {
    op: "publicRenew",
    fault: "HTML error page persistent",
    arrange: inject("publicRenew", {
      status: 502,
      headers: { "content-type": "text/html" },
      body: HTML_PAGE,
      ...ALWAYS,
    }),
    expect: { renewFails: { count: "all", cause: HTML_TITLE } },
  },
  {
    op: "publicRenew",
    fault: "400 refusal with a plain-text reason",
    arrange: inject("publicRenew", {
      status: 400,
      body: "Renewal refused: DNS zone not found",
      ...ALWAYS,
    }),
    expect: { renewFails: { count: "all", cause: /answered 400: Renewal refused: DNS zone/ } },
    extraCalls: "none",
  },
  {
    op: "publicRenew",
    fault: "401 Authorization failed",
    arrange: inject("publicRenew", { status: 401, body: "Authorization failed", ...ALWAYS }),
    expect: {
      renewFails: { count: "all", cause: /answered 401 \(the service refused certsched/ },
    },
    // A 401 drops the cloud tokens once per sweep and each refused call is sent once more.
    extraCalls: "some",
  },
];

const tokenCases: Case[] = [
  ...transient("token").filter((c) => !c.fault.includes("HTML")),
  {
    op: "token",
    fault: "hang past the timeout once",
    arrange: inject("token", { delayMs: HANG_MS, ...ONCE }),
    expect: {},
  },
  {
    op: "token",
    fault: "503 persistent",
    arrange: inject("token", { status: 503, body: "Service Unavailable", ...ALWAYS }),
    expect: { listFails: /Identity provider answered 503/ },
  },
  {
    op: "token",
    fault: "hang past the timeout persistent",
    arrange: inject("token", { delayMs: HANG_MS, ...ALWAYS }),
    expect: { listFails: /Identity provider unreachable.*no answer within the timeout/ },
  },
  {
    op: "token",
    fault: "401 AADSTS7000215 (the secret was rotated)",
    arrange: ({ sim }) => sim.setClientSecret(`rotated-${sim.options.clientSecret}`),
    expect: { listFails: /AADSTS7000215 \(invalid client secret/ },
    recover: ({ sim, settings }) => {
      settings.CERTSCHED_CLIENT_SECRET = sim.options.clientSecret;
    },
    extraCalls: "none",
  },
  {
    op: "token",
    fault: "401 AADSTS7000222 (the secret expired)",
    arrange: ({ sim }) => sim.expireClientSecret(),
    expect: { listFails: /AADSTS7000222 \(the client secret has expired/ },
    recover: ({ sim, settings }) => {
      sim.setClientSecret(`renewed-${sim.options.clientSecret}`);
      settings.CERTSCHED_CLIENT_SECRET = sim.options.clientSecret;
    },
    extraCalls: "none",
  },
  {
    op: "token",
    fault: "400 AADSTS90002 (unknown tenant)",
    arrange: ({ settings }) => {
      settings.CERTSCHED_TENANT_ID = "no-such-tenant";
    },
    expect: { listFails: /AADSTS90002 \(unknown tenant/ },
    recover: ({ sim, settings }) => {
      settings.CERTSCHED_TENANT_ID = sim.options.tenantId;
    },
    extraCalls: "none",
  },
  {
    op: "token",
    fault: "unreachable (nothing listens)",
    arrange: async ({ settings }) => {
      settings.CERTSCHED_TOKEN_URL = `http://127.0.0.1:${await closedPort()}/identity`;
    },
    expect: { listFails: /Identity provider unreachable.*ECONNREFUSED/ },
    recover: ({ sim, settings }) => {
      settings.CERTSCHED_TOKEN_URL = sim.tokenUrl;
    },
    extraCalls: "none",
  },
];

/** The client secret lives in a fake Key Vault read through the real SecretClient. */
async function useVault(world: World, retries = 0): Promise<FakeKeyVault> {
  const vault = await startFakeKeyVault({
    secrets: { "certsched-client-secret": world.sim.options.clientSecret },
  });
  world.vault = vault;
  delete world.settings.CERTSCHED_CLIENT_SECRET;
  world.settings.CERTSCHED_KEY_VAULT_URL = vault.url;
  // The SDK retries as in production, only faster (the fake's own options turn retries off).
  world.createSecretReader = (url) =>
    createSecretClientReader(url, stubCredential, {
      ...vault.clientOptions,
      retryOptions: { maxRetries: retries, retryDelayInMs: 20, maxRetryDelayInMs: 50 },
    });
  return vault;
}

/** Recovery from a vault fault: the secret is given directly, the vault is not needed. */
function withoutVault({ sim, settings }: World): void {
  delete settings.CERTSCHED_KEY_VAULT_URL;
  settings.CERTSCHED_CLIENT_SECRET = sim.options.clientSecret;
}

const vaultCases: Case[] = [
  {
    op: "keyVault",
    fault: "500 once (the SDK retries)",
    arrange: async (world) => (await useVault(world, 2)).inject({ status: 500, times: 1 }),
    expect: {},
  },
  {
    op: "keyVault",
    fault: "503 persistent",
    arrange: async (world) => (await useVault(world)).inject({ status: 503, times: 1_000 }),
    expect: { listFails: /Key Vault 127\.0\.0\.1:\d+: HTTP 503/ },
    recover: withoutVault,
  },
  {
    op: "keyVault",
    fault: "unreachable (nothing listens)",
    arrange: async (world) => {
      await useVault(world);
      world.settings.CERTSCHED_KEY_VAULT_URL = `https://127.0.0.1:${await closedPort()}`;
    },
    expect: { listFails: /Key Vault 127\.0\.0\.1:\d+: no response \(ECONNREFUSED\)/ },
    recover: withoutVault,
  },
  {
    op: "keyVault",
    fault: "hang past the timeout",
    arrange: async (world) => (await useVault(world)).inject({ delayMs: HANG_MS, times: 1_000 }),
    expect: { listFails: /Key Vault 127\.0\.0\.1:\d+: no answer within the timeout/ },
    recover: withoutVault,
  },
];

const ledgerCases: Case[] = [
  {
    op: "ledger",
    fault: "Azurite down",
    arrange: async (world) => {
      const azurite = await startAzurite();
      world.azurite = azurite;
      world.ledger = undefined;
      world.settings.AzureWebJobsStorage = azurite.connectionString;
      await azurite.stop();
    },
    // Renewing without duplicate protection could order renewals twice: none starts, the run
    // fails naming the ledger, and the recovery sweep renews them.
    expect: {
      runFails: /renewal ledger unavailable.*ECONNREFUSED/,
      notAttempted: "LedgerUnavailable",
    },
    recover: ({ settings }) => {
      delete settings.AzureWebJobsStorage;
    },
    ledgerLost: true,
  },
];

const CASES: Case[] = [...listCases, ...renewCases, ...tokenCases, ...vaultCases, ...ledgerCases];

const tally = {
  sweepCases: 0,
  timerCases: 0,
  faultsSurvived: 0,
  sweeps: 0,
  certificatesChecked: 0,
  retriedCalls: 0,
  duplicateRenewals: 0,
  lostCertificates: 0,
  textsScanned: 0,
  leaks: 0,
  handlerCases: 0,
};

function renewCallsTotal(sim: Simulator): number {
  return sim.certificates().reduce((sum, c) => sum + c.renewals, 0);
}

/** Calls of each operation in a healthy sweep over DUE certificates (tokens: one per resource). */
const HEALTHY_CALLS: Record<SimOperation, number> = {
  list: 1,
  publicRenew: DUE,
  token: 2,
  create: 0,
  renew: 0,
  test: 0,
  get: 0,
};

async function sweep(world: World, capture: Capture): Promise<SweepSummary> {
  const runtime = createAccountPorts(loadSettings(world.settings), {
    now: world.clock.now,
    ...(world.ledger ? { ledger: world.ledger } : {}),
    ...(world.createSecretReader ? { createSecretReader: world.createSecretReader } : {}),
  });
  try {
    const summary = await runSweep(runtime, capture.logger("renewDueCertificates"));
    capture.add("summary", JSON.stringify(summary));
    tally.sweeps += 1;
    return summary;
  } finally {
    await runtime.close();
  }
}

/** A message a person reads: one line, naming the cause. */
function expectOneLine(text: string, cause: RegExp): void {
  expect(text).not.toMatch(/[\r\n]/);
  expect(text).toMatch(cause);
}

describe.concurrent("fault matrix: one sweep per fault, then a recovery sweep", () => {
  it.for(CASES)("$op: $fault", async (c) => {
    const clock = fakeClock();
    const seeds = dueCertificates(clock.now(), DUE);
    const sim = await startSim({
      now: clock.now,
      completionDelayMs: COMPLETION_MS,
      certificates: [
        ...seeds,
        { certificateName: "later-1", expiryDate: new Date(clock.now().getTime() + 45 * DAY_MS) },
      ],
    });
    const capture = new Capture();
    capture.watch(sim);
    const world: World = {
      sim,
      clock,
      settings: settingsFor(sim, {
        CERTSCHED_HTTP_TIMEOUT: TIMEOUT,
        CERTSCHED_RENEWAL_GRACE: "2h",
      }),
      ledger: memoryLedger(),
    };
    const due = seeds.map((s) => s.certificateName);
    try {
      await c.arrange(world);
      const summary = await sweep(world, capture);
      await c.settle?.(world);

      // Every certificate the service listed has exactly one result (or is reported rejected).
      const names = summary.results.map((r) => r.certificateName);
      const rejected = summary.rejected.map((r) => r.certificateName);
      const e = c.expect;
      if (e.listFails) {
        expect(names).toEqual([]);
        expect(summary.listError).toBeDefined();
        expectOneLine(summary.listError ?? "", e.listFails);
      } else {
        tally.lostCertificates += due.filter((n) => ![...names, ...rejected].includes(n)).length;
        expect([...names, ...rejected].sort()).toEqual(due);
        expect(summary.rejected).toHaveLength(e.rejected ?? 0);
        for (const r of summary.rejected) {
          expect(summary.problems.join("\n")).toContain(`(${r.certificateName}) is invalid`);
        }
      }
      tally.certificatesChecked += due.length;

      // Outcomes, each failure naming its cause in one line.
      const failed = summary.results.filter((r) => r.outcome === "failed");
      const renewed = summary.results.filter((r) => r.outcome === "renewal-scheduled");
      const failCount =
        e.renewFails === undefined
          ? 0
          : e.renewFails.count === "all"
            ? names.length
            : e.renewFails.count;
      expect(failed).toHaveLength(failCount);
      const notAttempted = summary.results.filter((r) => r.outcome === "not-attempted");
      expect(notAttempted.map((r) => r.reason)).toEqual(
        e.notAttempted ? names.map(() => e.notAttempted) : [],
      );
      expect(renewed).toHaveLength(names.length - failCount - notAttempted.length);
      for (const r of failed) {
        const cause = e.renewFails?.cause ?? /$^/;
        expectOneLine(r.detail, cause);
        expectOneLine(resultLine(r), cause);
        expect(capture.lines()).toContain(resultLine(r));
      }

      // The run fails exactly when it must; its message is one line naming what failed.
      const mustFail =
        e.listFails !== undefined ||
        failCount > 0 ||
        (e.rejected ?? 0) > 0 ||
        e.runFails !== undefined;
      expect(summary.failed).toBe(mustFail);
      if (mustFail) {
        const message = new SweepFailedError(summary.problems).message;
        expectOneLine(
          message,
          e.listFails ?? e.runFails ?? (failCount > 0 ? /\d+ renewal\(s\) failed/ : /is invalid/),
        );
      }

      // No duplicate renewal: at most one accepted renew per certificate, and exactly one for
      // each certificate reported renewed.
      for (const name of due) {
        const calls = sim.renewCallsFor(name);
        expect(calls, name).toBeLessThanOrEqual(1);
        if (renewed.some((r) => r.certificateName === name)) expect(calls, name).toBe(1);
      }
      if (c.op !== "keyVault" && c.op !== "ledger") {
        const extra = sim.requestsFor(c.op).length - HEALTHY_CALLS[c.op];
        if (c.extraCalls === "none") expect(extra).toBeLessThanOrEqual(0);
        else expect(extra).toBeGreaterThan(0);
        tally.retriedCalls += Math.max(0, extra);
      }

      // Within the grace window, fault gone: a certificate whose renewal was sent (answered
      // or not) is left alone; one whose renewal surely failed is renewed now.
      if (c.recover) await c.recover(world);
      else sim.clearFaults();
      const sent = new Set(
        summary.results
          .filter((r) => r.outcome === "renewal-scheduled" || TIMED_OUT.test(r.detail))
          .map((r) => r.certificateName),
      );
      if (!c.ledgerLost) {
        clock.advance(30 * MINUTE_MS);
        const within = await sweep(world, capture);
        expect(within.failed, within.problems.join("; ")).toBe(false);
        for (const r of within.results) {
          expect(r.outcome, r.certificateName).toBe(
            sent.has(r.certificateName) ? "skipped" : "renewal-scheduled",
          );
        }
        for (const name of due) expect(sim.renewCallsFor(name), name).toBeLessThanOrEqual(1);
      }

      // Past the grace window: every certificate that was due ends renewed, none twice.
      clock.setElapsed(GRACE_MS + MINUTE_MS);
      const after = await sweep(world, capture);
      expect(after.failed, after.problems.join("; ")).toBe(false);
      clock.setElapsed(GRACE_MS + COMPLETION_MS + 2 * MINUTE_MS);
      for (const name of due) {
        expect(sim.renewCallsFor(name), name).toBe(1);
        const cert = sim.certificates().find((x) => x.certificateName === name);
        expect(cert?.expiryDate.getTime(), name).toBeGreaterThan(
          clock.now().getTime() + 20 * DAY_MS,
        );
      }
      tally.duplicateRenewals += due.filter((n) => sim.renewCallsFor(n) > 1).length;

      // Nothing secret in anything a person could read.
      const leaks = capture.leaks();
      tally.textsScanned += capture.seen.length;
      tally.leaks += leaks.length;
      expect(leaks).toEqual([]);
      tally.sweepCases += 1;
      tally.faultsSurvived += 1;
    } finally {
      await sim.close();
      await world.vault?.close();
      await world.azurite?.stop();
    }
  });
});

describe("through the timer function", () => {
  afterAll(() => releaseApp());

  async function runTimer(
    arrange: (sim: Simulator) => void,
    extra: Record<string, string> = {},
  ): Promise<{ sim: Simulator; capture: Capture; error: unknown }> {
    const sim = await startSim({ certificates: dueCertificates(new Date(), 3) });
    const capture = new Capture();
    capture.watch(sim);
    await configureApp(settingsFor(sim, { CERTSCHED_HTTP_TIMEOUT: TIMEOUT, ...extra }), {
      ledger: memoryLedger(),
    });
    arrange(sim);
    let error: unknown;
    try {
      await renewDueCertificates(timer(), capture.context("renewDueCertificates"));
    } catch (thrown) {
      error = thrown;
      capture.addError(thrown);
    }
    await sim.close();
    tally.textsScanned += capture.seen.length;
    expect(capture.leaks()).toEqual([]);
    tally.timerCases += 1;
    tally.faultsSurvived += 1;
    return { sim, capture, error };
  }

  it("succeeds when a fault is absorbed by a retry", async () => {
    const { sim, error } = await runTimer((s) => s.inject("publicRenew", { status: 503 }));
    expect(error).toBeUndefined();
    expect(sim.certificates().map((c) => c.renewals)).toEqual([1, 1, 1]);
  });

  it("fails the run, in one line naming the status, when the list keeps failing", async () => {
    const { error, capture } = await runTimer((s) =>
      s.inject("list", { status: 503, headers: { "retry-after": "0" }, ...ALWAYS }),
    );
    expect(error).toBeInstanceOf(SweepFailedError);
    expectOneLine((error as Error).message, /list certificates due for renewal failed.*503/);
    expect(capture.lines().some((l) => /could not list certificates.*503/.test(l))).toBe(true);
  });

  it("fails the run and names each certificate's cause in its log line", async () => {
    const { error, capture } = await runTimer((s) =>
      s.inject("publicRenew", { status: 400, body: "Renewal refused: quota", ...ALWAYS }),
    );
    expect(error).toBeInstanceOf(SweepFailedError);
    expectOneLine((error as Error).message, /3 renewal\(s\) failed/);
    const failures = capture.lines().filter((l) => l.startsWith("certsched certificate failed:"));
    expect(failures).toHaveLength(3);
    for (const line of failures) expectOneLine(line, /answered 400: Renewal refused: quota/);
  });

  it("fails the run naming the identity provider when it is unreachable", async () => {
    const port = await closedPort();
    const { error } = await runTimer(() => {}, {
      CERTSCHED_TOKEN_URL: `http://127.0.0.1:${port}/identity`,
    });
    expect(error).toBeInstanceOf(SweepFailedError);
    expectOneLine((error as Error).message, /Identity provider unreachable.*ECONNREFUSED/);
  });
});

interface HandlerCase {
  readonly op: "create" | "renew" | "test" | "list";
  readonly fault: string;
  readonly inject: Fault;
  /** Status certsched answers with, and what its problem detail must name. */
  readonly status: number;
  readonly cause?: RegExp;
  /** Requests that may reach the simulator for `op`: create is never repeated after a 5xx. */
  readonly calls: number;
}

const HTTP_FUNCTIONS = {
  create: () =>
    call(
      createCertificate,
      httpRequest({
        path: "certificates",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(CREATE_INPUT),
      }),
    ),
  renew: () => call(renewCertificate, httpRequest({ path: "x", params: { name: "due-1" } })),
  test: () => call(testConnectivity, httpRequest({ method: "GET", path: "connectivity" })),
  list: () => call(listDueCertificates, httpRequest({ method: "GET", path: "certificates/due" })),
} as const;

const CREATE_INPUT = {
  certificateName: "new-contoso-com",
  rootDomain: "contoso.com",
  email: "ops@contoso.com",
  password: "Pfx-Passw0rd-faults",
  isSAN: false,
  cloudSubscriptionId: "00000000-0000-4000-8000-00000000c0de",
  target: "Cloud App Service",
  challengeType: "http",
  cloudAppServicePlanName: "plan",
  cloudAppServicePlanResourceGroup: "rg-plan",
  cloudAppServiceResourceGroup: "rg-app",
  cloudAppServiceName: "contoso-web",
  cloudAppServiceSlotName: "",
};

const HANDLER_CASES: HandlerCase[] = [
  // create: only "not now" (429, 503) is repeated; after anything else the service may have
  // scheduled the certificate, so the failure is reported instead of a second create.
  { op: "create", fault: "503 once", inject: { status: 503 }, status: 202, calls: 2 },
  {
    op: "create",
    fault: '429 Retry-After "0" once',
    inject: { status: 429, headers: { "retry-after": "0" } },
    status: 202,
    calls: 2,
  },
  {
    op: "create",
    fault: "500 once",
    inject: { status: 500, body: "Internal Server Error" },
    status: 502,
    cause: /create certificate failed: the service answered 500/,
    calls: 1,
  },
  {
    op: "create",
    fault: "502 HTML page once",
    inject: { status: 502, headers: { "content-type": "text/html" }, body: HTML_PAGE },
    status: 502,
    cause: HTML_TITLE,
    calls: 1,
  },
  {
    op: "create",
    fault: "504 once",
    inject: { status: 504 },
    status: 502,
    cause: /answered 504/,
    calls: 1,
  },
  {
    op: "create",
    fault: "connection reset once",
    inject: { reset: true },
    status: 503,
    cause: RESET,
    calls: 1,
  },
  {
    op: "create",
    fault: "hang past the timeout once",
    inject: { delayMs: HANG_MS, reset: true },
    status: 504,
    cause: TIMED_OUT,
    calls: 1,
  },
  {
    op: "create",
    fault: "400 refusal",
    inject: { status: 400, body: "Certificate name is not defined" },
    status: 422,
    cause: /answered 400: Certificate name is not defined/,
    calls: 1,
  },
  // v3 renew: repeated after 5xx and resets (nothing was scheduled), never after a timeout.
  { op: "renew", fault: "500 once", inject: { status: 500 }, status: 202, calls: 2 },
  { op: "renew", fault: "connection reset once", inject: { reset: true }, status: 202, calls: 2 },
  {
    op: "renew",
    fault: "503 persistent",
    inject: { status: 503, headers: { "retry-after": "0" }, times: 10 },
    status: 503,
    cause: /answered 503/,
    calls: 4,
  },
  {
    op: "renew",
    fault: "hang past the timeout once",
    inject: { delayMs: HANG_MS, reset: true },
    status: 504,
    cause: TIMED_OUT,
    calls: 1,
  },
  // A 401 is sent once more with a fresh management token (a token revoked early recovers).
  {
    op: "renew",
    fault: "401 once",
    inject: { status: 401, body: "Unauthorized" },
    status: 202,
    calls: 2,
  },
  {
    op: "renew",
    fault: "401 persistent",
    inject: { status: 401, body: "Unauthorized", times: 10 },
    status: 502,
    cause: /answered 401 \(the service refused certsched/,
    calls: 2,
  },
  // test and list: reads, repeated after any transient fault.
  { op: "test", fault: "502 once", inject: { status: 502 }, status: 200, calls: 2 },
  {
    op: "test",
    fault: "connection reset persistent",
    inject: { reset: true, times: 10 },
    status: 503,
    cause: RESET,
    calls: 4,
  },
  {
    op: "test",
    fault: "HTML page persistent",
    inject: { status: 502, headers: { "content-type": "text/html" }, body: HTML_PAGE, times: 10 },
    status: 502,
    cause: HTML_TITLE,
    calls: 4,
  },
  { op: "list", fault: "504 once", inject: { status: 504 }, status: 200, calls: 2 },
  {
    op: "list",
    fault: "hang past the timeout once",
    inject: { delayMs: HANG_MS },
    status: 200,
    calls: 2,
  },
  {
    op: "list",
    fault: '429 Retry-After "0" persistent',
    inject: { status: 429, headers: { "retry-after": "0" }, times: 10 },
    status: 503,
    cause: /answered 429/,
    calls: 4,
  },
  {
    op: "list",
    fault: "malformed JSON",
    inject: { status: 200, headers: { "content-type": "application/json" }, body: "[{" },
    status: 502,
    cause: /malformed JSON/,
    calls: 1,
  },
];

let handlerCapture: Capture;

async function call(
  handler: (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>,
  request: HttpRequest,
): Promise<Reply> {
  const reply = toReply(await handler(request, handlerCapture.context(handler.name)));
  handlerCapture.add("response", reply.text);
  return reply;
}

describe("through the HTTP functions: each operation under each fault", () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSim({ certificates: dueCertificates(new Date(), 2) });
    handlerCapture = new Capture();
    handlerCapture.watch(sim);
  });
  afterAll(async () => {
    await releaseApp();
    await sim.close();
    tally.textsScanned += handlerCapture.seen.length;
    tally.leaks += handlerCapture.leaks().length;
  });

  it.for(HANDLER_CASES)("$op: $fault → $status", async (c) => {
    // Create and v3 renew wait CERTSCHED_SCHEDULE_TIMEOUT instead: the same here.
    await configureApp(
      settingsFor(sim, { CERTSCHED_HTTP_TIMEOUT: TIMEOUT, CERTSCHED_SCHEDULE_TIMEOUT: TIMEOUT }),
    );
    sim.reset();
    // Tokens first, so only the operation itself meets the fault.
    expect((await HTTP_FUNCTIONS.test()).status).toBe(200);
    sim.reset();
    sim.inject(c.op, c.inject);

    const reply = await HTTP_FUNCTIONS[c.op]();

    expect(reply.status, reply.text).toBe(c.status);
    if (c.cause) {
      expect(reply.headers["content-type"]).toBe("application/problem+json");
      expectOneLine((reply.body as { detail: string }).detail, c.cause);
    }
    expect(sim.requestsFor(c.op)).toHaveLength(c.calls);
    expect(handlerCapture.leaks()).toEqual([]);
    tally.handlerCases += 1;
    tally.faultsSurvived += 1;
    tally.retriedCalls += c.calls - 1;
  });
});

afterAll(() => {
  reportTally("faults", tally);
});
