import type { Notifier } from "../core/ports/notifier.js";
import type { Settings } from "../core/settings.js";
import { ensureError } from "../lib/errors.js";
import type { Logger } from "../lib/log.js";
import { redact } from "../lib/redact/redact.js";
import {
  type PreflightReport,
  type PreflightRequest,
  type PreflightRuntime,
  preflightWith,
} from "./preflight.js";
import { PREFLIGHT_CHECK_FUNCTIONS } from "./preflightChecks/all.js";
import type { PreflightCheckFunctions } from "./preflightChecks/checkTypes.js";

/** What the function app's preflight needs of a runtime (app/services.ts's AccountPorts satisfies it). */
export interface PreflightNotifyRuntime extends PreflightRuntime {
  readonly settings: PreflightRuntime["settings"] & Pick<Settings, "accountsDeclared">;
  readonly notifier: Pick<Notifier, "notifyPreflight">;
}

/** The summary line's fixed start (searches in Application Insights). */
export const PREFLIGHT_SUMMARY_PREFIX = "certsched preflight summary";

/**
 * One account's preflight as the timer and POST /api/preflight run it: the checks
 * (preflightWith: results stored, alert lines logged), then a summary line and one webhook
 * message per change. A webhook that fails is logged and never changes the result: the results
 * are stored, and GET /api/preflight shows them. A run that cannot be made (the inventory
 * unreadable) throws, for the caller to count against the account.
 */
export async function preflightAndNotify(
  runtime: PreflightNotifyRuntime,
  log: Logger,
  request: PreflightRequest,
  checks: PreflightCheckFunctions = PREFLIGHT_CHECK_FUNCTIONS,
): Promise<PreflightReport> {
  const report = await preflightWith(runtime, log, request, checks);
  // With accounts declared, every line names the account.
  const of = runtime.settings.accountsDeclared ? ` (account ${runtime.settings.account})` : "";
  if (report.notFound.length > 0) {
    log.warn(
      `certsched preflight${of}: not in the ${report.source === "inventory" ? "inventory" : "due list"}: ${report.notFound.map((n) => JSON.stringify(n)).join(", ")}`,
    );
  }
  if (report.invalid.length > 0) {
    log.warn(
      `certsched preflight${of}: inventory rows that could not be read (not checked): ${report.invalid.map((n) => JSON.stringify(n)).join(", ")}`,
    );
  }
  const c = report.counts;
  log.info(
    `${PREFLIGHT_SUMMARY_PREFIX}${of}: ${report.results.length} certificate(s) checked (${request.scope === "window" ? "those near their renewal window" : "every one asked for"}): ready ${c.ready}, will-fail ${c["will-fail"]}, unknown ${c.unknown}; ${report.changes.length} change(s) to tell`,
  );
  await runtime.notifier.notifyPreflight(report.changes, log).catch((error: unknown) => {
    log.warn(`certsched webhook notification failed${of}: ${redact(ensureError(error).message)}`);
  });
  return report;
}
