import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { poisonedRenewals } from "../../functions/poisonedRenewals.js";
import { renewDueCertificates } from "../../functions/renewDueCertificates.js";
import { runRenewals } from "../../functions/runRenewals.js";
import { verifyCertificates } from "../../functions/verifyCertificates.js";
import { memoryTransparencyStore } from "../../shared/adapters/storage/memory/memoryTransparency.js";
import { SINGLE_ACCOUNT_SETTINGS } from "../../shared/app/config/accounts.js";
import { loadPreflightSettings } from "../../shared/app/config/preflightSettings.js";
import { APP_SERVICE } from "../../shared/core/certificate/fields.js";
import type { EstateCertificate } from "../../shared/core/estate/estate.js";
import {
  estateAlertLine,
  estateEntryLine,
  estateSummaryLine,
} from "../../shared/core/estate/lines.js";
import { estateReport } from "../../shared/core/estate/report.js";
import { memoryHistory } from "../../shared/core/ports/history.js";
import { memoryInventory } from "../../shared/core/ports/inventory.js";
import { memoryLedger } from "../../shared/core/ports/ledger.js";
import { noNotifier } from "../../shared/core/ports/notifier.js";
import { noneDue } from "../../shared/core/ports/service.js";
import { PREFLIGHT_ALERT_PREFIX } from "../../shared/core/preflight/changes.js";
import {
  type CertificateResult,
  countOutcomes,
  resultLine,
  summaryLine,
} from "../../shared/core/renewal/summary.js";
import type { SeenIssuance } from "../../shared/core/transparency/issuance.js";
import { issuanceLine } from "../../shared/core/transparency/issuanceView.js";
import { alertLine, eventLine } from "../../shared/core/vaultEvents/lines.js";
import type { InventoryVerification } from "../../shared/core/verification/inventoryResult.js";
import { verificationSummaryLine } from "../../shared/core/verification/verificationSummary.js";
import { SweepFailedError, VerificationFailedError } from "../../shared/lib/errors.js";
import { DAY_MS, HOUR_MS } from "../../shared/lib/time.js";
import { runPreflight } from "../../shared/usecases/preflight.js";
import { ALERT_PREFIX, announceUnexpected } from "../../shared/usecases/transparency/announce.js";
import type { Hosting } from "../../sim/index.js";
import { startSimAccounts } from "../support/accounts.js";
import { collectingLogger, startHarness } from "../support/app.js";
import { httpRequest, timer } from "../support/invoke.js";
import { seededChecks, undecidedProbes } from "../support/preflight.js";
import { everyState, seenIssuance } from "../support/seenIssuances.js";
import { sampleEvent } from "../support/vaultEvents.js";
import {
  type BicepFile,
  calls,
  findBicepFiles,
  type Node,
  params,
  parseBicep,
  property,
  resources,
  stringValue,
} from "./bicepTree.js";
import { filters, memberAccesses, parsePatterns, passes, type Token, tokenize } from "./kql.js";

// Each alert rule's query lives in infra/alerts/*.kql, loaded by infra/modules/alerts.bicep.
// These tests hold every literal a query filters on against the lines the code really writes
// (a sweep against the simulator, through the timer function), so renaming a log line fails
// here instead of silencing an alert in production.

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const alertsDir = join(repoRoot, "infra/alerts");
const kqlFiles = readdirSync(alertsDir)
  .filter((f) => f.endsWith(".kql"))
  .sort();
const queries = new Map(kqlFiles.map((f) => [f, readFileSync(join(alertsDir, f), "utf8")]));
const files = findBicepFiles(join(repoRoot, "infra")).map((f) => parseBicep(f, repoRoot));

function bicep(path: string): BicepFile {
  const found = files.find((f) => f.path === path);
  if (!found) throw new Error(`${path} not found`);
  return found;
}
const alertsModule = bicep("infra/modules/alerts.bicep");
const main = bicep("infra/main.bicep");

function query(file: string): string {
  const text = queries.get(file);
  if (text === undefined) throw new Error(`infra/alerts/${file} is missing`);
  return text;
}

/** Lines one sweep logged through the function's InvocationContext. */
interface Sweep {
  readonly lines: string[];
  readonly summary: string;
  readonly thrown: unknown;
}

const inDays = (days: number) => new Date(Date.now() + (days + 0.5) * DAY_MS);

/** Runs the timer function against a simulator with these certificates and a memory ledger. */
async function sweepOnce(
  certificates: Parameters<typeof startHarness>[0],
  prepare: (
    ledger: ReturnType<typeof memoryLedger>,
    seeded: Map<string, { id: number; expiryDate: Date }>,
  ) => Promise<void>,
): Promise<Sweep> {
  const app = await startHarness({ completionDelayMs: 30 * 60_000, ...certificates });
  try {
    const ledger = memoryLedger();
    const seeded = new Map(app.sim.certificates().map((c) => [c.certificateName, c]));
    await prepare(ledger, seeded);
    await app.configure({}, { ledger });
    const thrown = await renewDueCertificates(timer(), app.context("renewDueCertificates")).then(
      () => undefined,
      (error: unknown) => error,
    );
    const lines = app.logs.map((l) => l.message);
    const summary = lines.find((l) => l.startsWith("certsched sweep summary "));
    if (!summary) throw new Error("the sweep logged no summary");
    return { lines, summary, thrown };
  } finally {
    await app.close();
  }
}

let good: Sweep;
let bad: Sweep;
/** Lines of verification timer runs, and their summary lines: one clean, one failed. */
let verified: { lines: string[]; summary: string; thrown: unknown };
let unverified: { lines: string[]; summary: string; thrown: unknown };

/** Runs the verification timer, through the function, over an inventory of these names. */
async function verifyOnce(names: string[]) {
  const app = await startHarness({
    certificates: names.map((n) => ({
      certificateName: n,
      rootDomain: `${n}.alerts.test`,
      expiryDate: inDays(50),
    })),
    hosting: {},
  });
  try {
    const inventory = memoryInventory();
    await inventory.upsert(
      names.map((n) => ({
        certificateName: n,
        rootDomain: `${n}.alerts.test`,
        target: APP_SERVICE,
        source: "created" as const,
        seenAt: new Date(),
      })),
    );
    const hosting = app.sim.hosting as Hosting;
    await app.configure({ CERTSCHED_VERIFY_CONNECT_TO: hosting.connectTo }, { inventory });
    const thrown = await verifyCertificates(timer(), app.context("verifyCertificates")).then(
      () => undefined,
      (error: unknown) => error,
    );
    const lines = app.logs.map((l) => l.message);
    const summary = lines.find((l) => l.startsWith("certsched verification summary "));
    if (!summary) throw new Error("the verification logged no summary");
    return { lines, summary, thrown };
  } finally {
    await app.close();
  }
}

/** A verification's summary line, as verifyWith writes it, for a run with these results. */
function verificationLine(failed: boolean): string {
  const verification: InventoryVerification = {
    at: new Date("2026-03-01T04:00:00.000Z"),
    results: [
      {
        domain: "shop.contoso.com",
        certificateName: "shop-contoso-com",
        source: "tls",
        status: failed ? "not-landed" : "ok",
        servedNotAfter: "2026-03-04T00:00:00.000Z",
        daysLeft: 2,
        detail: "renewal accepted more than 2 h ago (CERTSCHED_VERIFY_WINDOW)",
      },
    ],
    counts: failed ? { "not-landed": 1 } : { ok: 1 },
    failed,
    problems: failed ? ["shop-contoso-com (shop.contoso.com): not-landed"] : [],
    changes: [],
  };
  return verificationSummaryLine(verification, {
    trigger: "timer",
    scope: "inventory",
    durationMs: 5,
  });
}

/**
 * Lines of a real preflight run over three certificates of the account "contoso": one that will
 * fail with 10 days left (the alert line), one that will fail with 40 days left (a warning, no
 * alert), one ready. The checks are injected (runPreflight's ports take them): which fails is the
 * test's choice, the lines are the use case's.
 */
async function preflightOnce(): Promise<string[]> {
  const now = new Date();
  const inventory = memoryInventory();
  const row = (certificateName: string, days: number) => ({
    certificateName,
    rootDomain: `${certificateName}.alerts.test`,
    target: APP_SERVICE,
    challengeType: "http",
    serviceExpiry: new Date(now.getTime() + (days + 0.5) * DAY_MS),
    source: "due-list" as const,
    seenAt: now,
  });
  await inventory.upsert([row("soon", 10), row("later", 40), row("fine", 12)]);
  const caa = {
    check: "caa" as const,
    reason: "caa-forbids" as const,
    detail: 'CAA at alerts.test: 0 issue "other-ca.example"',
  };
  const { log, lines } = collectingLogger();
  await runPreflight(
    {
      account: "contoso",
      inventory,
      listDue: async () => noneDue(),
      probes: async () => undecidedProbes(),
      settings: loadPreflightSettings({}),
      checks: seededChecks({
        soon: [caa, { check: "app-binding", reason: "hostname-not-bound", detail: "not bound" }],
        later: [caa],
      }),
      now: () => now,
      log,
    },
    { scope: "all" },
  );
  return lines.map((l) => l.message);
}

/** Lines of the preflight run above. */
let preflighted: string[];

/** Lines of the poison function, on a message of a run the store does not hold. */
let poisoned: string[];
/** Lines of a run over two accounts, one of them with its client secret refused. */
let accountRun: string[];

beforeAll(async () => {
  preflighted = await preflightOnce();
  ctAlerts = await announceOnce([
    seenIssuance(
      {},
      {
        id: "9876543210",
        dnsNames: ["shop.contoso.com", "*.contoso.com", "a.contoso.com", "b.contoso.com"],
      },
    ),
    seenIssuance(
      { account: "fabrikam", watched: "fabrikam.net" },
      { id: "42", dnsNames: ["fabrikam.net"], issuer: undefined, notAfter: undefined },
    ),
  ]);
  // The poison function, through the function, over the in-process run store.
  const poisonApp = await startHarness({ certificates: [] });
  try {
    await poisonedRenewals(
      { runId: "0b1c2d3e-4f50-4617-8829-3a4b5c6d7e8f", dryRun: false },
      poisonApp.context("poisonedRenewals"),
    );
    poisoned = poisonApp.logs.map((l) => l.message);
  } finally {
    await poisonApp.close();
  }
  // A run over two accounts, in this process: "refused"'s client secret is refused.
  const accounts = await startSimAccounts(["healthy", "refused"], () => ({
    certificates: [{ certificateName: "www", expiryDate: inDays(5) }],
  }));
  const accountApp = await startHarness({ certificates: [] });
  try {
    accounts.sim("refused").expireClientSecret();
    const unset = Object.fromEntries(SINGLE_ACCOUNT_SETTINGS.map((name) => [name, undefined]));
    await accountApp.configure({ ...unset, ...accounts.env() });
    const reply = await accountApp.call(
      runRenewals,
      httpRequest({ method: "POST", path: "/api/renewals", query: { wait: "30" } }),
    );
    expect(reply.status).toBe(200);
    accountRun = accountApp.logs.map((l) => l.message);
  } finally {
    await accountApp.close();
    await accounts.close();
  }
  // The verification timer over nothing (a clean run), and over a certificate served by a CA
  // Node does not trust (untrusted: the run fails, as for not-landed or critically expiring).
  verified = await verifyOnce([]);
  unverified = await verifyOnce(["shop-contoso-com"]);
  // A sweep that went well: one certificate due in 5 days, renewed.
  good = await sweepOnce(
    { certificates: [{ certificateName: "www-contoso-com", expiryDate: inDays(5) }] },
    async () => {},
  );
  // A sweep that failed: one renewal refused, one certificate stuck (requested 25 h ago).
  bad = await sweepOnce(
    {
      certificates: [
        {
          certificateName: "intranet-contoso-com",
          expiryDate: inDays(8),
          refuseRenewal: "Renewal refused: DNS zone 'contoso-dns' not found",
        },
        { certificateName: "shop-contoso-com", expiryDate: inDays(3) },
      ],
    },
    async (ledger, seeded) => {
      const shop = seeded.get("shop-contoso-com");
      if (!shop) throw new Error("shop-contoso-com was not seeded");
      const requested = new Date(Date.now() - DAY_MS - HOUR_MS);
      await ledger.write(
        {
          id: shop.id,
          certificateName: "shop-contoso-com",
          // The expiry the service lists: a different one would start a new episode.
          expiryAtRequest: shop.expiryDate,
          firstRequestedAt: requested,
          lastRequestedAt: requested,
          outcome: "renewal-scheduled",
          attempts: 1,
          detail: undefined,
        },
        undefined,
      );
    },
  );
});

describe("the lines the alerts are checked against", () => {
  it("come from the real sweep: a clean one, and one with a failure and a stuck certificate", () => {
    expect(good.thrown).toBeUndefined();
    expect(good.summary).toContain('"failed":false');
    // The timer run fails (the host records the request as failed): what sweep-failed reads.
    expect(bad.thrown).toBeInstanceOf(SweepFailedError);
    expect(bad.summary).toContain('"failed":true');
    expect(
      bad.lines.some((l) => l.startsWith("certsched certificate stuck: shop-contoso-com")),
    ).toBe(true);
  });

  it("come from the real verification timer: a clean run, and one that fails naming the certificate", () => {
    expect(verified.thrown).toBeUndefined();
    expect(verified.summary).toContain('"failed":false');
    // The timer run fails (the host records the request as failed): what verification-failed reads.
    expect(unverified.thrown).toBeInstanceOf(VerificationFailedError);
    expect(unverified.summary).toContain('"failed":true');
    expect(unverified.summary).toContain('"name":"shop-contoso-com"');
  });

  it("are the lines summaryLine and resultLine write, whatever the run", () => {
    // The same functions, on runs the simulator sweep above does not make: a dry run that
    // failed must not page anyone; a dry run that went well proves the timer is alive.
    const stuck: CertificateResult = {
      certificateName: "a (weird) name: with [brackets]",
      id: 7,
      target: "Cloud Key Vault + DNS",
      expiryDate: "2026-03-09T03:00:00.000Z",
      daysLeft: -2,
      outcome: "stuck",
      reason: "Stuck",
      detail: "still due 25.0 h after renewal was first requested",
    };
    const run = (dryRun: boolean, failed: boolean): string =>
      summaryLine({
        dryRun,
        startedAt: "2026-03-01T03:00:00.000Z",
        durationMs: 5,
        ledger: "table",
        results: [stuck],
        rejected: [],
        counts: countOutcomes([stuck], 0),
        failed,
        problems: [],
      });
    const find = (file: string, line: string) =>
      filters(tokenize(query(file)))
        .filter((f) => f.column === "message")
        .every((f) => passes(line, f.operator, f.literal));
    expect(find("sweep-failed.kql", run(false, true))).toBe(true);
    expect(find("sweep-failed.kql", run(true, true))).toBe(false);
    expect(find("sweep-silent.kql", run(true, false))).toBe(true);
    expect(find("sweep-silent.kql", run(false, true))).toBe(false);
    const line = resultLine(stuck);
    expect(find("certificate-stuck.kql", line)).toBe(true);
    const [pattern] = parsePatterns(tokenize(query("certificate-stuck.kql")));
    expect(pattern?.regex.exec(line)?.groups).toMatchObject({
      target: "Cloud Key Vault + DNS",
      daysLeft: "-2",
    });
  });
});

/** The timer's function name as the host registers it (operation_Name in Application Insights). */
function registeredTimerName(module = "renewDueCertificates"): string {
  const source = readFileSync(join(repoRoot, `functions/${module}.ts`), "utf8");
  const name = /app\.timer\(\s*"([^"]+)"/.exec(source)?.[1];
  if (!name) throw new Error(`functions/${module}.ts registers no timer`);
  return name;
}

/** The timer whose failed runs each query looks for (the sweep's unless named here). */
const TIMER_OF: Record<string, string> = { "verification-failed.kql": "verifyCertificates" };

/** Lines the Certificate Transparency watch writes when `became` became unexpected. */
async function announceOnce(became: readonly SeenIssuance[]): Promise<string[]> {
  const { log, lines } = collectingLogger();
  for (const account of new Set(became.map((s) => s.account))) {
    const transparency = memoryTransparencyStore();
    const mine = became.filter((s) => s.account === account);
    await transparency.addNew(mine);
    await announceUnexpected(
      {
        account,
        now: () => new Date(),
        history: memoryHistory(),
        transparency,
        notifier: noNotifier,
      },
      mine,
      { runId: "ct-run", trigger: "timer" },
      log,
    );
  }
  return lines.map((l) => l.message);
}

/** The watch's alert lines for two issuances of two accounts, as it writes them. */
let ctAlerts: string[];
/** What the CLI says of issuances in each state: no alert among them. */
const ctOthers = everyState().map((s) => `certsched ct: ${issuanceLine(s)}`);

/**
 * The keyVaultEvents function's lines, made by the functions its use case writes them with
 * (shared/core/vaultEvents/lines.ts): the alert (error level) for an unmanaged and an at-risk
 * certificate, and the per-event lines, none of which is an alert.
 */
const nearExpiry = sampleEvent({ kind: "near-expiry", certificateName: "legacy-contoso-com" });
const expired = sampleEvent({ kind: "expired", vaultName: "kv-fabrikam", certificateName: "shop" });
const vaultAlerts = [
  alertLine(
    "contoso",
    nearExpiry,
    "unmanaged certificate expiring: kv-events/legacy-contoso-com in subscription 0000-1111, resource group rg-certs",
  ),
  alertLine(
    "fabrikam",
    expired,
    "expired at 2026-12-01T10:00:00.000Z and the vault holds no later version",
  ),
];
const estateNow = new Date("2026-12-02T05:40:00Z");
const gatewayCertificate: EstateCertificate = {
  id: "/subscriptions/s/resourcegroups/rg-network/providers/microsoft.network/applicationgateways/agw-contoso/sslcertificates/portal-contoso-com",
  kind: "application-gateway",
  name: "portal-contoso-com",
  subscriptionId: "00000000-0000-4000-8000-0000000e57a7",
  resourceGroup: "rg-network",
  expiresAt: new Date("2026-12-11T05:40:00Z"),
  hostNames: ["portal.contoso.com"],
  moreHostNames: 0,
  boundTo: [
    {
      kind: "listener",
      resourceId: "/x/httplisteners/https-portal",
      hostName: "portal.contoso.com",
    },
  ],
  problems: [],
};
const estate = estateReport({
  account: "contoso",
  discovered: [
    gatewayCertificate,
    { ...gatewayCertificate, id: "b", name: "quiet", expiresAt: new Date("2027-06-01T00:00:00Z") },
  ],
  records: [],
  now: estateNow,
  expiringDays: 30,
  problems: [],
  truncated: 0,
});
const estateAlerts = estate.entries
  .filter((e) => e.gaps.includes("unmanaged-expiring"))
  .map((e) => estateAlertLine("contoso", e, estateNow));
const estateOthers = [
  estateSummaryLine(estate),
  ...estate.entries.map((e) => estateEntryLine("contoso", e, estateNow)),
];

const vaultEventLines = [
  eventLine(nearExpiry, nearExpiry.id, "unmanaged", "unmanaged certificate expiring"),
  eventLine(
    sampleEvent(),
    "8b2e",
    "done",
    'account "contoso": consumers serve it: www.contoso.com',
  ),
  eventLine(
    expired,
    "5a5a",
    "skipped not-watched",
    "vault kv-fabrikam is not watched by this account",
  ),
];

/** Which real lines each query must find, and which it must not. */
function cases(): Record<string, { finds: string[]; ignores: string[] }> {
  return {
    "sweep-failed.kql": {
      finds: [bad.summary],
      ignores: [good.summary, verificationLine(true), ...verified.lines, ...unverified.lines],
    },
    "sweep-silent.kql": {
      finds: [good.summary],
      ignores: [bad.summary, verificationLine(false), ...verified.lines, ...unverified.lines],
    },
    "verification-failed.kql": {
      finds: [unverified.summary, verificationLine(true)],
      ignores: [
        verificationLine(false),
        ...verified.lines,
        ...unverified.lines.filter((l) => l !== unverified.summary),
        good.summary,
        bad.summary,
      ],
    },
    "run-poisoned.kql": {
      finds: poisoned.filter((l) => l.startsWith("certsched run poisoned: ")),
      ignores: [
        ...poisoned.filter((l) => !l.startsWith("certsched run poisoned: ")),
        ...good.lines,
        ...bad.lines,
        ...verified.lines,
      ],
    },
    "account-alert.kql": {
      finds: accountRun.filter((l) =>
        l.startsWith("certsched account alert: account refused: credentials-refused in run "),
      ),
      ignores: [
        ...accountRun.filter((l) => !l.startsWith("certsched account alert: ")),
        ...poisoned,
        ...good.lines,
        ...bad.lines,
      ],
    },
    "preflight-will-fail.kql": {
      finds: preflighted.filter((l) => l.startsWith(PREFLIGHT_ALERT_PREFIX)),
      ignores: [
        ...preflighted.filter((l) => !l.startsWith(PREFLIGHT_ALERT_PREFIX)),
        ...good.lines,
        ...bad.lines,
        ...unverified.lines,
        ...accountRun,
      ],
    },
    "unexpected-issuance.kql": {
      finds: ctAlerts,
      ignores: [...ctOthers, ...preflighted, ...accountRun, ...good.lines, ...bad.lines],
    },
    "vault-expiry.kql": {
      finds: vaultAlerts,
      ignores: [...vaultEventLines, ...ctAlerts, ...preflighted, ...good.lines, ...bad.lines],
    },
    "estate-expiring.kql": {
      finds: estateAlerts,
      ignores: [
        ...estateOthers,
        ...vaultAlerts,
        ...ctAlerts,
        ...preflighted,
        ...good.lines,
        ...bad.lines,
      ],
    },
    "certificate-stuck.kql": {
      finds: bad.lines.filter((l) => l.includes("certificate stuck")),
      ignores: [...good.lines, ...bad.lines.filter((l) => !l.includes("certificate stuck"))],
    },
    "certificate-expiring.kql": {
      finds: [good.summary, bad.summary],
      ignores: good.lines.filter((l) => !l.startsWith("certsched sweep summary")),
    },
  };
}

describe.each(kqlFiles)("infra/alerts/%s", (file) => {
  const tokens = tokenize(query(file));
  const messageFilters = filters(tokens).filter((f) => f.column === "message");

  it("is checked here (a new query needs its lines in cases())", () => {
    expect(Object.keys(cases())).toContain(file);
  });

  it("finds the lines it is meant for, with every message filter it applies", () => {
    const { finds } = cases()[file] ?? { finds: [] };
    expect(finds.length).toBeGreaterThan(0);
    for (const line of finds) {
      const failing = messageFilters.filter((f) => !passes(line, f.operator, f.literal));
      expect(
        failing.map((f) => `${f.operator} ${JSON.stringify(f.literal)}`),
        line,
      ).toEqual([]);
    }
  });

  it("does not find the lines it is not meant for", () => {
    const { ignores } = cases()[file] ?? { ignores: [] };
    for (const line of ignores) {
      expect(
        messageFilters.every((f) => passes(line, f.operator, f.literal)),
        line,
      ).toBe(false);
    }
  });

  it("compares operation_Name only with the timer's registered name", () => {
    for (const f of filters(tokens).filter((f) => f.column === "operation_Name")) {
      expect(f.operator).toBe("==");
      expect(f.literal).toBe(registeredTimerName(TIMER_OF[file]));
    }
  });

  it("parses lines with patterns that match them, column by column", () => {
    for (const pattern of parsePatterns(tokens)) {
      expect(pattern.column).toBe("message");
      const { finds } = cases()[file] ?? { finds: [] };
      for (const line of finds) {
        const m = pattern.regex.exec(line);
        expect(m, `${pattern.regex} on ${line}`).not.toBeNull();
      }
    }
  });

  it("reads only fields the summary line has", () => {
    const accesses = memberAccesses(tokens, ["s", "c"]);
    const summary = JSON.parse(good.summary.slice("certsched sweep summary ".length)) as Record<
      string,
      unknown
    >;
    for (const field of accesses.get("s") ?? []) expect(summary, field).toHaveProperty(field);
    const certificates = summary.certificates as Record<string, unknown>[];
    expect(certificates.length).toBeGreaterThan(0);
    for (const field of accesses.get("c") ?? []) {
      for (const c of certificates) expect(c, field).toHaveProperty(field);
    }
  });

  it("has no string literal these checks do not cover", () => {
    const covered = new Set<number>();
    for (const f of filters(tokens)) covered.add(f.token);
    for (const p of parsePatterns(tokens)) for (const t of p.tokens) covered.add(t);
    const uncovered = tokens
      .map((t, i) => ({ t, i }))
      .filter(({ t, i }) => t.kind === "string" && !covered.has(i))
      .filter(({ t, i }) => !isLabel(tokens, i) && !isPrefixArgument(tokens, i, t))
      .map(({ t }) => t.value);
    expect(uncovered).toEqual([]);
  });
});

/** `name = "text"` in project/extend: a label shown in the alert, not a filter. */
function isLabel(tokens: readonly Token[], i: number): boolean {
  return tokens[i - 1]?.value === "=" && tokens[i - 2]?.kind === "word";
}

/** `strlen("prefix")` used to cut a prefix off: the prefix must start the summary line. */
function isPrefixArgument(tokens: readonly Token[], i: number, t: Token): boolean {
  if (tokens[i - 2]?.value !== "strlen" || tokens[i - 1]?.value !== "(") return false;
  expect(good.summary.startsWith(t.value)).toBe(true);
  expect(() => JSON.parse(good.summary.slice(t.value.length))).not.toThrow();
  return true;
}

describe("certificate-stuck.kql", () => {
  it("parses the stuck line into its certificate, target and days left", () => {
    const [pattern] = parsePatterns(tokenize(query("certificate-stuck.kql")));
    const line = bad.lines.find((l) => l.startsWith("certsched certificate stuck: ")) ?? "";
    const groups = pattern?.regex.exec(line)?.groups;
    expect(groups).toMatchObject({
      certificate: "shop-contoso-com",
      target: "Cloud App Service",
      daysLeft: "3",
    });
    expect(groups?.detail).toMatch(/after renewal was first requested/);
  });
});

describe("preflight-will-fail.kql", () => {
  it("finds the one certificate under 25 days, and parses its name, account, reasons and days", () => {
    const alerts = preflighted.filter((l) => l.startsWith(PREFLIGHT_ALERT_PREFIX));
    expect(alerts).toHaveLength(1);
    // The one over 25 days is a warning the rule does not read.
    expect(preflighted.some((l) => l.includes('"later" will fail to renew (caa-forbids)'))).toBe(
      true,
    );
    const [pattern] = parsePatterns(tokenize(query("preflight-will-fail.kql")));
    expect(pattern?.regex.exec(alerts[0] ?? "")?.groups).toEqual({
      certificate: "soon",
      account: "contoso",
      reasons: "caa-forbids, hostname-not-bound",
      daysLeft: "10",
    });
  });
});

describe("unexpected-issuance.kql", () => {
  it("parses the watch's line into the issuance, watched name, account, names, issuer and validity", () => {
    expect(ctAlerts).toHaveLength(2);
    expect(ctAlerts.every((l) => l.startsWith(ALERT_PREFIX))).toBe(true);
    const [pattern] = parsePatterns(tokenize(query("unexpected-issuance.kql")));
    expect(pattern?.regex.exec(ctAlerts[0] ?? "")?.groups).toEqual({
      issuance: "9876543210",
      watched: "contoso.com",
      account: "contoso",
      names: "shop.contoso.com, *.contoso.com, a.contoso.com and 1 more",
      issuer: "C=US, O=Let's Encrypt, CN=R11",
      notBefore: "2026-05-30T09:00:00Z",
      notAfter: "2026-08-28T09:00:00Z",
    });
    expect(pattern?.regex.exec(ctAlerts[1] ?? "")?.groups).toMatchObject({
      issuance: "42",
      account: "fabrikam",
      issuer: "an unknown issuer",
      notAfter: "?",
    });
  });
});

describe("vault-expiry.kql", () => {
  it("parses the alert line into the event kind, vault/certificate, version, account and why", () => {
    const [pattern] = parsePatterns(tokenize(query("vault-expiry.kql")));
    expect(pattern?.regex.exec(vaultAlerts[0] ?? "")?.groups).toEqual({
      kind: "near-expiry",
      certificate: `${nearExpiry.vaultName}/legacy-contoso-com`,
      version: nearExpiry.version,
      account: "contoso",
      detail:
        "unmanaged certificate expiring: kv-events/legacy-contoso-com in subscription 0000-1111, resource group rg-certs",
    });
    expect(pattern?.regex.exec(vaultAlerts[1] ?? "")?.groups).toMatchObject({
      kind: "expired",
      certificate: "kv-fabrikam/shop",
      account: "fabrikam",
    });
  });

  it("alerts at severity 1, one alert per certificate", () => {
    const rule = rules().find((r) => r.file === "vault-expiry.kql");
    expect(property(rule?.body, "properties", "severity")?.text).toBe("1");
    const dimension = property(rule?.body, "properties", "criteria", "allOf");
    expect(dimension?.text).toMatch(/name: 'certificate'/);
  });
});

describe("estate-expiring.kql", () => {
  it("parses the alert line into the certificate, where it lives, the account and the rest", () => {
    expect(estateAlerts).toHaveLength(1);
    const [pattern] = parsePatterns(tokenize(query("estate-expiring.kql")));
    expect(pattern?.regex.exec(estateAlerts[0] ?? "")?.groups).toEqual({
      certificate: "portal-contoso-com",
      kind: "application-gateway",
      account: "contoso",
      detail:
        "expires 2026-12-11T05:40:00.000Z (9 days): bound to listener portal.contoso.com; in 00000000-0000-4000-8000-0000000e57a7/rg-network",
    });
  });

  it("alerts at severity 2, one alert per certificate", () => {
    const rule = rules().find((r) => r.file === "estate-expiring.kql");
    expect(property(rule?.body, "properties", "severity")?.text).toBe("2");
    const dimension = property(rule?.body, "properties", "criteria", "allOf");
    expect(dimension?.text).toMatch(/name: 'certificate'/);
  });
});

describe("certificate-expiring.kql", () => {
  it("names the 7-day threshold its rule's title states", () => {
    expect(query("certificate-expiring.kql")).toMatch(/\| where daysLeft < 7\b/);
    const rule = rules().find((r) => r.file === "certificate-expiring.kql");
    expect(stringValue(property(rule?.body, "properties", "displayName"))).toMatch(/within 7 days/);
  });
});

/** Each scheduled query rule of alerts.bicep, with the .kql it loads. */
function rules() {
  return resources(alertsModule)
    .filter((r) => r.type === "Microsoft.Insights/scheduledQueryRules@2023-12-01")
    .map((r) => {
      const criterion = property(r.body, "properties", "criteria", "allOf")?.namedChildren[0];
      const load = calls(criterion, "loadTextContent")[0];
      const arg = load?.childForFieldName("arguments")?.namedChildren[0];
      const path = stringValue(arg) ?? "";
      return { ...r, criterion, path, file: path.replace(/^\.\.\/alerts\//, "") };
    });
}

function text(node: Node | undefined): string | undefined {
  return node?.text;
}

describe("infra/modules/alerts.bicep", () => {
  it("loads every .kql file once, from infra/alerts/, and nothing else as a query", () => {
    const loaded = rules().map((r) => r.path);
    expect(loaded.sort()).toEqual(kqlFiles.map((f) => `../alerts/${f}`));
    for (const r of rules()) {
      expect(property(r.criterion, "query")?.type, r.symbol).toBe("call_expression");
    }
  });

  it("puts every rule on the app's Application Insights, sending to the action group", () => {
    for (const r of rules()) {
      const props = property(r.body, "properties");
      expect(
        property(props, "scopes")?.namedChildren.map((n) => n.text),
        r.symbol,
      ).toEqual(["appInsights.id"]);
      expect(text(property(props, "actions", "actionGroups")), r.symbol).toBe("actionGroups");
      expect(stringValue(property(r.body, "kind")), r.symbol).toBe("LogAlert");
      expect(text(property(props, "enabled")), r.symbol).toBe("true");
      expect(stringValue(property(props, "evaluationFrequency")), r.symbol).toBe("PT1H");
    }
    const appInsights = resources(alertsModule).find((r) => r.symbol === "appInsights");
    expect(appInsights?.existing).toBe(true);
    expect(text(property(appInsights?.body, "name"))).toBe("appInsightsName");
  });

  it("gives queries that look back with ago() a time range that covers it", () => {
    for (const r of rules()) {
      const lookBack = /ago\((\d+)h\)/.exec(query(r.file))?.[1];
      if (lookBack === undefined) continue;
      const range = stringValue(property(r.body, "properties", "overrideQueryTimeRange"));
      const hours =
        range === "P2D"
          ? 48
          : range === "P1D"
            ? 24
            : Number(/^PT(\d+)H$/.exec(range ?? "")?.[1] ?? 0);
      expect(hours, r.symbol).toBeGreaterThanOrEqual(Number(lookBack));
    }
  });

  it("fires the dead-man rule when the query's own count is below 1", () => {
    const rule = rules().find((r) => r.file === "sweep-silent.kql");
    const column = stringValue(property(rule?.criterion, "metricMeasureColumn"));
    expect(column).toBe("successes");
    expect(query("sweep-silent.kql")).toMatch(new RegExp(`summarize ${column} = count\\(\\)\\s*$`));
    expect(stringValue(property(rule?.criterion, "timeAggregation"))).toBe("Total");
    expect(stringValue(property(rule?.criterion, "operator"))).toBe("LessThan");
    expect(text(property(rule?.criterion, "threshold"))).toBe("1");
    expect(query("sweep-silent.kql")).toMatch(/ago\(26h\)/);
  });

  it("fires the other rules on any row, split by a column their query returns", () => {
    for (const r of rules().filter((r) => r.file !== "sweep-silent.kql")) {
      expect(stringValue(property(r.criterion, "operator")), r.symbol).toBe("GreaterThan");
      expect(text(property(r.criterion, "threshold")), r.symbol).toBe("0");
      for (const d of property(r.criterion, "dimensions")?.namedChildren ?? []) {
        const name = stringValue(property(d, "name")) ?? "";
        expect(query(r.file), `${r.symbol} splits by ${name}`).toMatch(
          new RegExp(`\\bproject\\b[^\\n]*\\b${name}\\b`),
        );
      }
    }
  });

  it("creates the action group only with an e-mail address or a webhook, the webhook secure", () => {
    const group = resources(alertsModule).find(
      (r) => r.type === "Microsoft.Insights/actionGroups@2023-01-01",
    );
    expect(group?.condition).toBe("hasActionGroup");
    const source = readFileSync(alertsModule.absolutePath, "utf8");
    expect(source).toMatch(/var hasActionGroup = hasEmail \|\| hasWebhook/);
    expect(source).toMatch(/var hasEmail = !empty\(alertEmail\)/);
    expect(source).toMatch(/var hasWebhook = !empty\(alertWebhookUrl\)/);
    expect(source).toMatch(/var actionGroups = hasActionGroup \? \[actionGroup\.id\] : \[\]/);
    for (const f of [alertsModule, main]) {
      const webhook = params(f).find((p) => p.name === "alertWebhookUrl");
      expect(webhook?.decorators, f.path).toContain("secure");
    }
  });

  it("says plainly in an azd output when no action group notifies anybody", () => {
    const source = readFileSync(alertsModule.absolutePath, "utf8");
    expect(source).toMatch(/output notice string = hasActionGroup\s*\?[^:]+:\s*'NO ACTION GROUP: /);
    // The webhook URL is a secret: the notice names receivers by kind only.
    expect(source).not.toMatch(/\$\{alertWebhookUrl\}/);
    const mainSource = readFileSync(main.absolutePath, "utf8");
    expect(mainSource).toMatch(/^output AZURE_ALERTS string = alerts\.outputs\.notice$/m);
  });
});

describe("docs/operations.md", () => {
  const docs = readFileSync(join(repoRoot, "docs/operations.md"), "utf8");

  it.each(kqlFiles)("documents %s by its path, not by a copy that could drift", (file) => {
    expect(docs).toContain(`infra/alerts/${file}`);
    // No copy of the query's filters outside the file.
    const literals = filters(tokenize(query(file)))
      .filter((f) => f.column === "message")
      .map((f) => f.literal);
    for (const literal of literals.filter((l) => l.includes('"'))) {
      expect(docs.includes(`contains '${literal}'`), literal).toBe(false);
    }
  });
});
