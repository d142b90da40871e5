import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, sourceText, tsFilesUnder } from "../support/sourceTree.js";

/*
 * Tests mirror the source tree (docs/design/floor-plan.md, "The test tree"): the test of
 * shared/core/renewal/decide.ts is test/shared/core/renewal/decide.test.ts, or a suite named
 * decide.<topic>.test.ts beside it. Every module of shared/ that exports a function or a class,
 * and every handler and CLI command, has one, unless it is listed below with the suite that
 * covers it. The other way round, a suite in the mirror names a module that exists.
 */

/**
 * Modules without a mirror suite of their own, each with the suite that covers it (through the
 * module that uses it, or beside a sibling). Shrink it: a module that gets its own suite must
 * leave the list (a test below says so).
 */
const COVERED_ELSEWHERE: Readonly<Record<string, string>> = {
  // The readers the use case gets from services.forAccount(), over the simulator.
  "shared/app/estateReaders.ts": "test/shared/usecases/estate/discoverEstate.test.ts",
  // The Certificate Transparency watch's stages, through the watch's suite over the simulated
  // watcher (paging, restarts, every bad answer, the one announcement).
  "shared/usecases/transparency/announce.ts": "test/shared/usecases/watchTransparency.test.ts",
  "shared/usecases/transparency/askAll.ts": "test/shared/usecases/watchTransparency.test.ts",
  "shared/usecases/transparency/askWatcher.ts": "test/shared/usecases/watchTransparency.test.ts",
  // The renewal calendar's parts, through the timing's suites (DST, freezes, jitter, openings).
  "shared/core/windows/freezes.ts": "test/shared/core/windows/timing.test.ts",
  "shared/core/windows/localTime.ts": "test/shared/core/windows/timingWords.test.ts",
  "shared/core/windows/openTimes.ts": "test/shared/core/windows/timing.test.ts",
  "shared/core/windows/windowClock.ts": "test/shared/core/windows/timing.test.ts",
  // The zod pieces the settings and the accounts share, through both parsers' suites.
  "shared/app/config/schema.ts": "test/shared/app/config/settings.test.ts",
  "shared/app/config/wholeNumber.ts": "test/shared/app/config/settings.test.ts",
  // Preflight: the row's property through the inventory's suite, one certificate's
  // checks through the use case's.
  "shared/adapters/storage/rows/preflightJson.ts":
    "test/shared/adapters/storage/tableInventory.preflight.test.ts",
  "shared/usecases/preflightChecks/checkCertificate.ts": "test/shared/usecases/preflight.test.ts",
  // Handlers reached through a sibling's suite.
  "functions/handlers/poisonedRenewals.ts": "test/functions/handlers/runQueuedRenewals.test.ts",
  "functions/handlers/runVerifications.ts": "test/functions/handlers/getVerifications.test.ts",
  // CLI commands run through the built binary by the cross-command suites.
  "cli/commands/completion.ts": "test/cli/main.operator.test.ts",
  "cli/commands/due.ts": "test/cli/main.commands.test.ts",
  "cli/commands/renew.ts": "test/cli/main.commands.test.ts",
  "cli/commands/runs.ts": "test/cli/commands/history.test.ts",
  "cli/commands/test.ts": "test/cli/main.commands.test.ts",
  // Identity: the token sources are driven by the token cache's suites.
  "shared/adapters/identity/aadsts.ts": "test/shared/adapters/identity/tokenCache.test.ts",
  "shared/adapters/identity/clientCredentials.ts":
    "test/shared/adapters/identity/tokenCache.test.ts",
  "shared/adapters/identity/secretClientReader.ts":
    "test/shared/adapters/identity/secretStore.test.ts",
  "shared/adapters/identity/timedTokenSource.ts":
    "test/shared/adapters/identity/tokenCache.lifetimes.test.ts",
  "shared/adapters/identity/tokenCredential.ts":
    "test/shared/adapters/probes/keyVaultProbe.tokens.test.ts",
  // Notify: each message format through the webhook format and notifier suites.
  "shared/adapters/notify/jsonMessage.ts": "test/shared/adapters/notify/webhookFormat.test.ts",
  "shared/adapters/notify/slackMessage.ts": "test/shared/adapters/notify/webhookFormat.test.ts",
  "shared/adapters/notify/sweepReport.ts": "test/shared/adapters/notify/webhookFormat.test.ts",
  "shared/adapters/notify/teamsMessage.ts": "test/shared/adapters/notify/webhookFormat.test.ts",
  "shared/adapters/queue/storageRunQueue.ts": "test/functions/handlers/runQueuedRenewals.test.ts",
  // Service: requests and Get Certificate through the client's suites.
  "shared/adapters/service/getCertificate.ts":
    "test/shared/adapters/service/responses.enteredRecord.test.ts",
  "shared/adapters/service/requests.ts":
    "test/shared/adapters/service/serviceClient.retries.test.ts",
  // Storage: the table helper and rows under the stores built on them.
  "shared/adapters/storage/ledgerRows.ts": "test/cli/commands/status.test.ts",
  "shared/adapters/storage/rows/historyRow.ts": "test/shared/adapters/storage/tableHistory.test.ts",
  // Configuration: the duration rule is read through the settings it parses.
  "shared/app/config/duration.ts": "test/shared/app/config/settings.test.ts",
  // Core rules exercised through the module that applies them.
  "shared/core/certificate/certificateView.ts":
    "test/shared/core/certificate/records.vendorAlignment.test.ts",
  "shared/core/certificate/fields.ts": "test/shared/core/inventory/fromRecords.remember.test.ts",
  "shared/core/certificate/recordWarnings.ts":
    "test/shared/core/certificate/records.vendorAlignment.test.ts",
  "shared/core/inventory/watch.ts": "test/shared/app/config/settings.watch.test.ts",
  "shared/core/quota/renewalNeed.ts": "test/shared/core/quota/budgetRules.test.ts",
  "shared/core/quota/requestContext.ts": "test/shared/adapters/service/requestLog.test.ts",
  "shared/core/quota/serviceQuota.ts": "test/shared/app/config/settings.quota.test.ts",
  "shared/core/renewal/summary.ts": "test/shared/usecases/sweep/renewEach.test.ts",
  "shared/core/status/serviceOverlay.ts": "test/cli/commands/status.test.ts",
  "shared/core/verification/verificationSummary.ts":
    "test/functions/handlers/getVerifications.test.ts",
  "shared/core/verification/views.ts": "test/functions/handlers/getVerifications.test.ts",
  // Ports with their in-memory implementations, used by the suites of their callers.
  "shared/core/ports/history.ts": "test/shared/adapters/storage/tableHistory.recorded.test.ts",
  "shared/core/ports/inventory.ts": "test/shared/core/inventory/fromRecords.remember.test.ts",
  "shared/core/ports/ledger.ts": "test/shared/usecases/sweep/renewEach.test.ts",
  "shared/core/ports/runStore.ts": "test/shared/adapters/storage/tableRunStore.monotonic.test.ts",
  "shared/core/ports/service.ts": "test/shared/core/renewal/callBudget.test.ts",
  // The HTTP edge: every handler suite goes through it.
  "shared/edge/auth/callerOf.ts": "test/shared/edge/auth/clientPrincipal.test.ts",
  "shared/edge/auth/roles.ts": "test/shared/edge/auth/clientPrincipal.test.ts",
  "shared/edge/dashboard/dashboardPage.ts": "test/shared/core/dashboard/dashboardModel.test.ts",
  "shared/edge/errorResponse.ts":
    "test/functions/handlers/renewCertificate.upstreamFailures.test.ts",
  "shared/edge/handle.ts": "test/functions/handlers/renewCertificate.upstreamFailures.test.ts",
  "shared/edge/parseQuery.ts": "test/shared/edge/readBody.strictInput.test.ts",
  "shared/edge/views/runView.ts": "test/functions/handlers/runQueuedRenewals.test.ts",
  // lib/ helpers, through their callers.
  "shared/lib/abort.ts": "test/shared/adapters/probes/tlsProbe.test.ts",
  "shared/lib/http/responseDetail.ts": "test/shared/lib/http/retryPolicy.test.ts",
  "shared/lib/redact/redactStrings.ts": "test/shared/lib/redact/tokenShapes.test.ts",
  "shared/lib/redact/secretForms.ts": "test/shared/lib/redact/redact.test.ts",
  "shared/lib/text/boundDetail.ts":
    "test/shared/usecases/steps/verifyInventory.detailBound.test.ts",
  "shared/lib/zodProblems.ts": "test/shared/core/certificate/records.schemas.test.ts",
  // Use cases, through the handler that runs them.
  "shared/usecases/certificateDetail.ts": "test/functions/handlers/getCertificate.test.ts",
  "shared/usecases/cleanupHistory.ts": "test/functions/handlers/cleanupHistory.test.ts",
  "shared/usecases/createCertificate.ts": "test/functions/handlers/createCertificate.test.ts",
  "shared/usecases/poisonRun.ts": "test/functions/handlers/runQueuedRenewals.test.ts",
  "shared/usecases/processRun.ts": "test/functions/handlers/runQueuedRenewals.test.ts",
  "shared/usecases/renewByName.ts": "test/functions/handlers/renewCertificate.test.ts",
  "shared/usecases/startRun.ts": "test/functions/handlers/runRenewals.test.ts",
  "shared/usecases/steps/recordRun.ts": "test/functions/handlers/runRenewals.test.ts",
  // The sweep's stages, each driven through the suites of the pipeline (sweep.*, renewEach.*).
  "shared/usecases/sweep/renewOne.ts": "test/shared/usecases/sweep/renewEach.test.ts",
  "shared/usecases/sweep/openLedger.ts": "test/shared/usecases/sweep/renewEach.test.ts",
  "shared/usecases/sweep/list.ts": "test/shared/usecases/sweep/renewEach.test.ts",
  "shared/usecases/sweep/plan.ts": "test/shared/usecases/sweep/renewEach.test.ts",
  "shared/usecases/sweep/summarize.ts":
    "test/shared/usecases/sweep/renewEach.classification.test.ts",
  "shared/usecases/sweep/sweepRun.ts": "test/shared/usecases/sweep/sweep.budget.test.ts",
  "shared/usecases/sweep/bookkeeping.ts": "test/shared/usecases/sweep/sweep.budget.test.ts",
  "shared/usecases/sweep/telemetryOf.ts": "test/shared/usecases/sweep/sweep.notifications.test.ts",
  "shared/usecases/steps/watchedUpdates.ts": "test/shared/usecases/steps/verifyInventory.test.ts",
  "shared/usecases/verify.ts": "test/functions/handlers/verifyCertificates.runs.test.ts",
  "shared/usecases/waitForRun.ts": "test/functions/handlers/runRenewals.test.ts",
  // Split out of services.ts (the composition root); covered by the suite of the module it left.
  "shared/app/accountServices.ts": "test/shared/app/services.test.ts",
  "shared/app/appServices.ts": "test/shared/app/services.test.ts",
};

/**
 * Suites in the mirror's folders that name no module, on purpose: the registrations of
 * functions/*.ts are checked together, and cli/main.ts is driven as a child process by topic.
 */
const NOT_A_MODULE: ReadonlySet<string> = new Set([
  "test/functions/registrations.test.ts",
  "test/functions/registrations.lazyLoading.test.ts",
  "test/functions/hostIndexing.test.ts",
]);

/** Whether a module exports a function or a class of its own (re-exports and types do not count). */
function exportsLogic(path: string): boolean {
  const file = ts.createSourceFile(path, sourceText(path), ts.ScriptTarget.ES2022, true);
  const exported = (node: ts.Node) =>
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  const isFunction = (node: ts.Expression | undefined) =>
    node !== undefined && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));
  return file.statements.some(
    (statement) =>
      exported(statement) &&
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        (ts.isVariableStatement(statement) &&
          statement.declarationList.declarations.some((d) => isFunction(d.initializer)))),
  );
}

const testFiles = new Set(tsFilesUnder("test").filter((path) => path.endsWith(".test.ts")));

/** The mirror suites of a module: test/<path>.test.ts and test/<path>.<topic>.test.ts. */
function mirrorSuites(module: string): string[] {
  const folder = `test/${dirname(module)}`;
  const name = basename(module, ".ts");
  return [...testFiles].filter(
    (test) => dirname(test) === folder && basename(test).split(".")[0] === name,
  );
}

const modules = [
  ...tsFilesUnder("shared").filter(exportsLogic),
  ...tsFilesUnder("functions/handlers"),
  ...tsFilesUnder("cli/commands"),
];

describe("tests mirror the source tree", () => {
  it("finds the modules (the scan is not empty)", () => {
    expect(modules.length).toBeGreaterThan(50);
    expect(modules).toContain("shared/core/renewal/decide.ts");
    expect(exportsLogic("shared/core/renewal/decide.ts")).toBe(true);
    // A module of types only has no logic of its own.
    expect(exportsLogic("shared/core/settings.ts")).toBe(false);
  });

  it("every module with logic has a mirror suite or is listed with the suite that covers it", () => {
    const missing = modules.filter(
      (module) => mirrorSuites(module).length === 0 && !(module in COVERED_ELSEWHERE),
    );
    expect(missing).toEqual([]);
  });

  it("every listed module exists, still needs the entry, and names a suite that exists", () => {
    const stale = Object.entries(COVERED_ELSEWHERE).flatMap(([module, suite]) => {
      if (!existsSync(join(REPO_ROOT, module))) return [`${module}: no such module`];
      if (mirrorSuites(module).length > 0) return [`${module}: has its own suite now`];
      if (!testFiles.has(suite)) return [`${module}: no suite ${suite}`];
      return [];
    });
    expect(stale).toEqual([]);
  });

  it("every suite in the mirror's folders names a module that exists", () => {
    const mirrored = [...testFiles].filter(
      (test) => /^test\/(shared|functions|cli)\//.test(test) && !NOT_A_MODULE.has(test),
    );
    const orphans = mirrored.filter((test) => {
      const module = `${dirname(test).slice("test/".length)}/${basename(test).split(".")[0]}.ts`;
      return !existsSync(join(REPO_ROOT, module));
    });
    expect(orphans).toEqual([]);
  });
});
