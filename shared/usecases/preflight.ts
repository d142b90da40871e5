import type { Inventory, PreflightRecord } from "../core/ports/inventory.js";
import type { PreflightProbes } from "../core/ports/preflightProbes.js";
import type { DueList, ServiceOperations } from "../core/ports/service.js";
import { alertLine, changeOf, type PreflightChange } from "../core/preflight/changes.js";
import {
  checkDetail,
  countByStatus,
  failReasons,
  type PreflightResult,
  type PreflightStatus,
} from "../core/preflight/preflight.js";
import type { PreflightSettings } from "../core/preflight/preflightSettings.js";
import {
  fromDueRecord,
  fromInventory,
  inPreflightWindow,
  type PreflightCandidate,
} from "../core/preflight/subject.js";
import type { Settings } from "../core/settings.js";
import { ensureError } from "../lib/errors.js";
import type { Logger } from "../lib/log.js";
import { mapWithConcurrency } from "../lib/pool.js";
import { PREFLIGHT_CHECK_FUNCTIONS } from "./preflightChecks/all.js";
import { checkCertificate } from "./preflightChecks/checkCertificate.js";
import type { CheckContext, PreflightCheckFunctions } from "./preflightChecks/checkTypes.js";
import { memoizedArm } from "./preflightChecks/memoizedArm.js";

/**
 * Preflight (docs/contracts/preflight.md): for every certificate of one account,
 * the checks that apply, run now, each bounded; the results kept with the certificates; what
 * changed and what to alert on, for the caller to tell. Nothing here renews or spends a request
 * of the service's budget (the due list is read only when there is no storage).
 */

export interface PreflightPorts {
  readonly account: string;
  readonly inventory: Inventory;
  /** The account's due list: what is checked when there is no storage (inventory kind "none"). */
  readonly listDue: () => Promise<DueList>;
  /** Built on first use: the SDKs behind them load only when preflight runs. */
  readonly probes: () => Promise<PreflightProbes>;
  readonly settings: PreflightSettings;
  readonly checks: PreflightCheckFunctions;
  readonly now: () => Date;
  readonly log: Logger;
}

export interface PreflightRequest {
  /** Only these certificates (the CLI's --certificate); undefined: every one. */
  readonly names?: readonly string[] | undefined;
  /** `window`: only those within CERTSCHED_PREFLIGHT_DAYS of the renewal window (the timer). */
  readonly scope: "all" | "window";
  readonly signal?: AbortSignal | undefined;
}

export interface PreflightReport {
  readonly account: string;
  readonly results: readonly PreflightResult[];
  readonly counts: Record<PreflightStatus, number>;
  /** Into will-fail, or back to ready: one webhook message each. */
  readonly changes: readonly PreflightChange[];
  /** Names asked for that the inventory (or the due list) does not hold. */
  readonly notFound: readonly string[];
  /** Inventory rows that could not be read (named, not checked). */
  readonly invalid: readonly string[];
  /** Where the certificates came from. */
  readonly source: "inventory" | "due-list";
  /** The results could not be stored (named in the log): the next sweep does not see them. */
  readonly unstored: boolean;
}

/** Certificates checked at once: each makes a handful of DNS, HTTP and ARM calls. */
const CERTIFICATES_AT_ONCE = 8;

/** The certificates to check, and where they came from. */
async function candidatesOf(
  ports: PreflightPorts,
  request: PreflightRequest,
): Promise<
  Pick<PreflightReport, "notFound" | "invalid" | "source"> & {
    list: PreflightCandidate[];
    stored: Map<string, PreflightRecord | undefined>;
  }
> {
  const now = ports.now();
  let list: PreflightCandidate[];
  let invalid: readonly string[] = [];
  const stored = new Map<string, PreflightRecord | undefined>();
  let source: PreflightReport["source"];
  if (ports.inventory.kind === "none") {
    source = "due-list";
    list = (await ports.listDue()).certificates.map(fromDueRecord);
  } else {
    source = "inventory";
    const read = await ports.inventory.list();
    invalid = read.invalid;
    list = [];
    for (const record of read.items) {
      const candidate = fromInventory(record);
      if (!candidate) continue;
      list.push(candidate);
      stored.set(record.certificateName, record.lastPreflight);
    }
  }
  const names = request.names;
  const notFound = names ? names.filter((n) => !list.some((c) => c.certificateName === n)) : [];
  if (names) list = list.filter((c) => names.includes(c.certificateName));
  if (request.scope === "window") {
    const days = ports.settings.days;
    list = list.filter((c) => inPreflightWindow(c.expiry, now, days));
  }
  return { list, stored, notFound, invalid, source };
}

/** Runs preflight for one account (the callers go over the accounts). */
export async function runPreflight(
  ports: PreflightPorts,
  request: PreflightRequest,
): Promise<PreflightReport> {
  const found = await candidatesOf(ports, request);
  const at = ports.now();
  const base = found.list.length === 0 ? undefined : await ports.probes();
  const ctx: CheckContext | undefined = base && {
    // One run asks ARM once per zone and once per subscription's list of sites.
    probes: { ...base, arm: memoizedArm(base.arm) },
    settings: ports.settings,
    signal: request.signal,
  };
  const results = ctx
    ? await mapWithConcurrency(found.list, CERTIFICATES_AT_ONCE, (candidate) =>
        checkCertificate(ports.account, candidate, ctx, ports.checks, at),
      )
    : [];
  const changes: PreflightChange[] = [];
  let unstored = false;
  for (const [i, result] of results.entries()) {
    const candidate = found.list[i];
    const change = changeOf(
      found.stored.get(result.certificateName)?.status,
      result,
      candidate?.expiry,
    );
    if (change) changes.push(change);
    const line = alertLine(result, candidate?.expiry);
    if (line) ports.log.error(line);
    else if (result.status === "will-fail") {
      ports.log.warn(
        `certsched preflight: ${JSON.stringify(result.certificateName)} will fail to renew (${failReasons(result).join(", ")})`,
      );
    }
  }
  if (ports.inventory.kind !== "none" && results.length > 0) {
    try {
      await mapWithConcurrency(
        results,
        CERTIFICATES_AT_ONCE,
        ({ account: _a, certificateName, ...record }) =>
          ports.inventory.recordPreflight(certificateName, record),
      );
    } catch (error) {
      unstored = true;
      ports.log.warn(
        `certsched preflight: the results could not be stored (the sweep will not see them): ${checkDetail(ensureError(error).message)}`,
      );
    }
  }
  return {
    account: ports.account,
    results,
    counts: countByStatus(results),
    changes,
    notFound: found.notFound,
    invalid: found.invalid,
    source: found.source,
    unstored,
  };
}

/** What a runtime gives preflight (app/services.ts's AccountPorts satisfies it). */
export interface PreflightRuntime {
  readonly settings: Pick<Settings, "account" | "preflight">;
  readonly inventory: Inventory;
  readonly client: Pick<ServiceOperations, "listDue">;
  preflightProbes(): Promise<PreflightProbes>;
  readonly now: () => Date;
}

/** Runs preflight for a runtime's account (the CLI, the timer, POST /api/preflight). */
export function preflightWith(
  runtime: PreflightRuntime,
  log: Logger,
  request: PreflightRequest,
  checks: PreflightCheckFunctions = PREFLIGHT_CHECK_FUNCTIONS,
): Promise<PreflightReport> {
  return runPreflight(
    {
      account: runtime.settings.account,
      inventory: runtime.inventory,
      listDue: () => runtime.client.listDue(),
      probes: () => runtime.preflightProbes(),
      settings: runtime.settings.preflight(),
      checks,
      now: runtime.now,
      log,
    },
    request,
  );
}
