import { randomUUID } from "node:crypto";
import { type KeyVaultSeam, probeKeyVault } from "../../adapters/probes/keyVaultProbe.js";
import type { ProbeOptions } from "../../adapters/probes/tlsProbe.js";
import { loadVerifySettings } from "../../app/config/verifySettings.js";
import type { Runtime } from "../../app/services.js";
import { APP_SERVICE, KEY_VAULT } from "../../core/certificate/fields.js";
import type { CertificateEvent, Trigger } from "../../core/history/events.js";
import { WATCH_PREFIX, watchKey } from "../../core/inventory/watch.js";
import {
  type InventoryRecord,
  type InventoryUpdate,
  mergeRecord,
  type VerificationRecord,
} from "../../core/ports/inventory.js";
import { ACCEPTED_OUTCOMES } from "../../core/ports/ledger.js";
import type { Env } from "../../core/settings.js";
import {
  endpointKey,
  type NamedEndpoint,
  parseEndpoint,
} from "../../core/verification/endpoint.js";
import type { AcceptedRenewal, InventoryStatus } from "../../core/verification/judge.js";
import { INVENTORY_STATUSES } from "../../core/verification/judge.js";
import { SERVICE_NAME_RULE, serviceNameProblem } from "../../core/verification/publicAddress.js";
import { needsPerson } from "../../core/verification/verificationSummary.js";
import type { VerifySettings } from "../../core/verification/verifySettings.js";
import { ensureError, ValidationError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { mapWithConcurrency } from "../../lib/pool.js";
import { redact } from "../../lib/redact/redact.js";
import { boundDetail, boundWithNote, withBoundDetail } from "../../lib/text/boundDetail.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { someNames } from "../../lib/text/names.js";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../../lib/time.js";
import { judgeTarget, probeTarget } from "../verifyDomains.js";
import { recordHistory } from "./recordRun.js";
import { watchedUpdates } from "./watchedUpdates.js";

/**
 * One verification run over the inventory (issue 12): every known certificate, every
 * CERTSCHED_WATCH endpoint, judged where users look (TLS or the vault), recorded back.
 * The timer, the sweep, `POST /api/verifications` and `certsched verify` all run this.
 */

export interface InventoryResult {
  readonly domain: string;
  readonly certificateName?: string;
  readonly source: "tls" | "keyvault";
  readonly status: InventoryStatus;
  /** Present (true) only for a critically `expiring` certificate. */
  readonly critical?: true;
  /** Present whenever a certificate was read. */
  readonly servedNotAfter?: string;
  readonly daysLeft?: number;
  readonly issuer?: string;
  readonly serial?: string;
  readonly thumbprint?: string;
  readonly detail: string;
  /** For `unreachable`: true once CERTSCHED_VERIFY_UNREACHABLE_AFTER has passed since the first failure. */
  readonly pastGrace?: boolean;
}

/** A result whose status differs from the one recorded before (webhooks, history). */
export interface StatusChange {
  readonly certificateName?: string;
  readonly domain: string;
  /** Undefined: never verified before. */
  readonly from?: InventoryStatus;
  readonly to: InventoryStatus;
  readonly critical: boolean;
}

export interface InventoryVerification {
  readonly at: Date;
  readonly results: InventoryResult[];
  /** Results per status (statuses that occur). */
  readonly counts: Readonly<Record<string, number>>;
  /** True when any result fails the run (contracts/verify.md, exit 1). */
  readonly failed: boolean;
  /** One line per failing result, naming the certificate, redacted. */
  readonly problems: string[];
  readonly changes: StatusChange[];
}

export interface VerifyInventoryOptions {
  readonly trigger: Trigger;
  /** Only these certificate names (and nothing watched); default: the whole inventory. */
  readonly names?: readonly string[];
  /** Trusted certificates instead of Node's default store (tests). */
  readonly ca?: ProbeOptions["ca"];
  readonly signal?: AbortSignal;
  readonly runId?: string;
  /** The verification settings; default: read from `env`. */
  readonly settings?: VerifySettings;
  /** Where the verification settings are read when `settings` is not given (default process.env). */
  readonly env?: Env;
  /**
   * Certificates to verify besides the inventory's, laid over its records by name and not
   * stored (the CLI's due list when no storage is configured).
   */
  readonly also?: readonly InventoryUpdate[];
  /** Probes at a time (default 16: they wait on the network, not the CPU). */
  readonly concurrency?: number;
  /** Where the tests' fake vault is; production passes nothing. */
  readonly keyVault?: KeyVaultSeam;
}

/**
 * Longest `domain` of any result: a host name is at most 253 characters, a vault's
 * `{vault}/{certificate}` at most 152; a name that could not be probed, a vault or certificate
 * name from the service (30,000 characters), a certificate with no endpoint named by its name,
 * are cut to this.
 */
const MAX_DOMAIN = 300;

/** Longest piece of such a name quoted in its detail: the rule after it must stay readable. */
const MAX_NAME_IN_DETAIL = 100;

/** Storage calls at once (ledger reads, inventory writes). */
const STORAGE_CONCURRENCY = 8;

/** One thing to look at, and the inventory records it speaks for. */
type Check =
  | {
      readonly kind: "tls";
      readonly endpoint: NamedEndpoint;
      readonly owners: InventoryRecord[];
      /** Only the service names it: probed at public addresses only (publicAddress.ts). */
      publicOnly: boolean;
    }
  | { readonly kind: "vault"; readonly owners: InventoryRecord[] }
  | {
      readonly kind: "unverifiable";
      readonly domain: string;
      readonly detail: string;
      readonly owners: InventoryRecord[];
    };

const isWatch = (r: InventoryRecord) => r.certificateName.startsWith(WATCH_PREFIX);

/**
 * Whether a result needs a person (contracts/verify.md, exit 1): not-landed, expired, mismatch,
 * untrusted, critically expiring, unreachable past its grace. `unverifiable` never does. The
 * CLI's exit code and the timer's failed run both ask this.
 */
export function failsRun(result: InventoryResult): boolean {
  return needsPerson(result);
}

/** Results per status, in the contract's order; statuses that do not occur are left out. */
export function countInventoryStatuses(
  results: readonly Pick<InventoryResult, "status">[],
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const status of INVENTORY_STATUSES) {
    const n = results.filter((r) => r.status === status).length;
    if (n > 0) counts[status] = n;
  }
  return counts;
}

/**
 * What to look at for each record: the rootDomain (and SAN names) over TLS for an App Service
 * certificate or a watched endpoint, the vault for a Key Vault one, nothing (unverifiable,
 * with why) for any other target. One TLS check per domain: a domain serves one certificate,
 * whichever records name it.
 */
function plan(records: readonly InventoryRecord[]): Check[] {
  const checks: Check[] = [];
  const byDomain = new Map<string, Extract<Check, { kind: "tls" }>>();
  const tls = (record: InventoryRecord, name: string, optional: boolean) => {
    const fromService = !isWatch(record);
    // The service's words may not aim a probe at a port or an address (publicAddress.ts).
    const refused = fromService ? serviceNameProblem(name) : undefined;
    const endpoint = refused === undefined ? parseEndpoint(name) : refused;
    if (typeof endpoint === "string") {
      // A SAN entry may be a wildcard: the rootDomain is checked all the same.
      if (!optional) {
        checks.push({
          kind: "unverifiable",
          // The service's text as it was, escaped and bounded: it was not a name to probe.
          domain: boundDetail(name, MAX_DOMAIN),
          detail:
            refused === undefined
              ? `its domain ${endpoint}; name the hosts to check in CERTSCHED_WATCH`
              : `not probed: its domain "${boundDetail(name, MAX_NAME_IN_DETAIL)}" is refused because ${refused}: ${SERVICE_NAME_RULE}`,
          owners: [record],
        });
      }
      return;
    }
    const known = byDomain.get(endpointKey(endpoint));
    if (known) {
      if (!known.owners.includes(record)) known.owners.push(record);
      // Watched too: the operator named it, so it is probed wherever it resolves.
      if (!fromService) known.publicOnly = false;
      return;
    }
    const check = { kind: "tls" as const, endpoint, owners: [record], publicOnly: fromService };
    byDomain.set(endpointKey(endpoint), check);
    checks.push(check);
  };
  // Certificates first, watched endpoints after: a domain both name is the certificate's.
  const ordered = [...records.filter((r) => !isWatch(r)), ...records.filter(isWatch)];
  for (const record of ordered) {
    const unverifiable = (detail: string) =>
      checks.push({
        kind: "unverifiable",
        domain: record.rootDomain ?? record.certificateName,
        detail,
        owners: [record],
      });
    if (isWatch(record)) {
      tls(record, record.certificateName.slice(WATCH_PREFIX.length), false);
    } else if (record.target === KEY_VAULT) {
      if (record.keyVaultName) checks.push({ kind: "vault", owners: [record] });
      else unverifiable("a Key Vault certificate, but the service names no keyVaultName for it");
    } else if (record.target === APP_SERVICE) {
      if (!record.rootDomain) {
        unverifiable("the service lists no rootDomain for it, so there is no endpoint to check");
        continue;
      }
      tls(record, record.rootDomain, false);
      for (const san of record.sanNames ?? []) tls(record, san, true);
    } else if (record.target === undefined) {
      unverifiable("its target is not known yet (the next sweep or Get Certificate tells it)");
    } else {
      unverifiable(
        `target "${record.target}" has no endpoint or vault certsched can look at (a DNS-only or stand-alone certificate); name its hosts in CERTSCHED_WATCH to check them`,
      );
    }
  }
  return checks;
}

/**
 * The renewal the ledger holds as accepted for each record with an id; none when the ledger is
 * off or cannot be read (a warning: pending and not-landed cannot be told then).
 */
async function acceptedRenewals(
  runtime: Runtime,
  log: Logger,
  records: readonly InventoryRecord[],
): Promise<Map<string, AcceptedRenewal>> {
  const renewals = new Map<string, AcceptedRenewal>();
  if (runtime.ledger.kind === "none") return renewals;
  const problems: string[] = [];
  const withId = records.filter((r) => r.id !== undefined);
  await mapWithConcurrency(withId, STORAGE_CONCURRENCY, async (record) => {
    try {
      const row = (await runtime.ledger.read(record.id as number))?.record;
      // The window starts when the service accepted: the "sent" time, a request's length early.
      if (row && ACCEPTED_OUTCOMES.has(row.outcome) && row.lastRequestedAt) {
        renewals.set(record.certificateName, {
          acceptedAt: row.lastRequestedAt,
          expiryAtRequest: row.expiryAtRequest,
        });
      }
    } catch (error) {
      problems.push(
        error instanceof ValidationError
          ? `${record.certificateName}: ${error.message}`
          : ensureError(error).message,
      );
    }
  });
  if (problems.length > 0) {
    log.warn(
      `certsched could not read the renewal ledger for ${problems.length} certificate(s), so a renewal in flight shows as its served certificate, not pending or not-landed: ${redact(problems[0] ?? "")}`,
    );
  }
  return renewals;
}

/** The latest acceptance among the records (a domain several certificates name). */
function renewalOf(
  owners: readonly InventoryRecord[],
  renewals: ReadonlyMap<string, AcceptedRenewal>,
): AcceptedRenewal | undefined {
  let latest: AcceptedRenewal | undefined;
  for (const owner of owners) {
    const r = renewals.get(owner.certificateName);
    if (r && (!latest || r.acceptedAt > latest.acceptedAt)) latest = r;
  }
  return latest;
}

const nameOf = (owners: readonly InventoryRecord[]) => {
  const first = owners[0];
  return first && !isWatch(first) ? { certificateName: first.certificateName } : {};
};

/** Reads one check's certificate (TLS or vault) and judges it. Never throws. */
async function runCheck(
  check: Check,
  runtime: Runtime,
  settings: VerifySettings,
  renewals: ReadonlyMap<string, AcceptedRenewal>,
  options: VerifyInventoryOptions,
): Promise<InventoryResult> {
  const renewal = renewalOf(check.owners, renewals);
  switch (check.kind) {
    case "unverifiable":
      return {
        domain: check.domain,
        ...nameOf(check.owners),
        source: "tls",
        status: "unverifiable",
        detail: check.detail,
      };
    case "vault": {
      const record = check.owners[0] as InventoryRecord;
      return probeKeyVault(
        {
          keyVaultName: record.keyVaultName as string,
          keyVaultCertificateName: record.keyVaultCertificateName,
          certificateName: record.certificateName,
          renewal,
        },
        {
          tokens: runtime.tokens,
          vaultResource: runtime.settings.vaultResource,
          settings,
          now: runtime.now,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.keyVault ? { seam: options.keyVault } : {}),
        },
      );
    }
    case "tls": {
      const target = { endpoint: check.endpoint, publicOnly: check.publicOnly, renewal };
      const verifyOptions = {
        settings,
        now: runtime.now,
        ...(options.ca ? { ca: options.ca } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      };
      const probe = await probeTarget(target, verifyOptions);
      if (!probe.reached && probe.step === "REFUSED") {
        // Nothing was opened, so there is nothing to tell apart: one answer, never a finding.
        return {
          domain: check.endpoint.label,
          ...nameOf(check.owners),
          source: "tls",
          status: "unverifiable",
          detail: `not probed: ${check.endpoint.host} resolves to an address that is not public (loopback, private, link-local or unspecified): ${SERVICE_NAME_RULE}`,
        };
      }
      const result = judgeTarget(target, probe, verifyOptions);
      return { ...(result as InventoryResult), ...nameOf(check.owners) };
    }
  }
}

/**
 * A check that threw (a certificate no reader expected, a bug): that certificate is
 * unreachable, with why, and the run goes on. One certificate never stops the others.
 */
function brokenCheck(check: Check, error: unknown): InventoryResult {
  const first = check.owners[0];
  const domain =
    check.kind === "tls"
      ? check.endpoint.label
      : check.kind === "vault"
        ? escapeControl(
            `${first?.keyVaultName}/${first?.keyVaultCertificateName || first?.certificateName}`,
          )
        : check.domain;
  return {
    domain,
    ...nameOf(check.owners),
    source: check.kind === "vault" ? "keyvault" : "tls",
    status: "unreachable",
    detail: `certsched could not read its certificate: ${escapeControl(redact(ensureError(error).message))}`,
  };
}

/** "24 h", "90 min", "2 d": the grace in words. */
function span(ms: number): string {
  if (ms >= DAY_MS && ms % DAY_MS === 0) return `${ms / DAY_MS} d`;
  if (ms >= HOUR_MS && ms % HOUR_MS === 0) return `${ms / HOUR_MS} h`;
  if (ms >= MINUTE_MS && ms % MINUTE_MS === 0) return `${ms / MINUTE_MS} min`;
  return `${Math.round(ms / 1000)} s`;
}

/**
 * The unreachable grace: counted from the first failed attempt on record (kept while the
 * endpoint stays unreachable), an error once CERTSCHED_VERIFY_UNREACHABLE_AFTER has passed
 * (at exactly that much, it has). With no record kept (no storage) there is no grace.
 */
function withGrace(
  result: InventoryResult,
  owners: readonly InventoryRecord[],
  now: Date,
  settings: VerifySettings,
  kept: boolean,
): { result: InventoryResult; unreachableSince?: Date } {
  if (result.status !== "unreachable") return { result };
  if (!kept) return { result: { ...result, pastGrace: true } };
  let since = now;
  for (const owner of owners) {
    const v = owner.lastVerification;
    if (v?.status === "unreachable" && v.unreachableSince && v.unreachableSince < since)
      since = v.unreachableSince;
  }
  const pastGrace = now.getTime() - since.getTime() >= settings.unreachableAfterMs;
  const after = `${span(settings.unreachableAfterMs)} (CERTSCHED_VERIFY_UNREACHABLE_AFTER)`;
  const note = pastGrace
    ? `unreachable since ${since.toISOString()}, for at least ${after}`
    : `unreachable since ${since.toISOString()}; an error once that is ${after} ago`;
  return {
    // The note is kept whole: the cause is cut to make room for it.
    result: { ...result, pastGrace, detail: boundWithNote(result.detail, note) },
    unreachableSince: since,
  };
}

/** How bad a result is, to keep the worst of a record's domains: needs a person first. */
function severity(r: InventoryResult): number {
  if (failsRun(r)) return 0;
  const order: readonly InventoryStatus[] = [
    "unreachable",
    "expiring",
    "pending",
    "unverifiable",
    "ok",
  ];
  const i = order.indexOf(r.status);
  return 1 + (i === -1 ? order.length : i);
}

function toRecord(r: InventoryResult, at: Date, unreachableSince: Date | undefined) {
  const record: VerificationRecord = {
    at,
    status: r.status,
    source: r.source,
    domain: r.domain,
    detail: redact(r.detail),
    ...(r.critical ? { critical: true } : {}),
    ...(r.servedNotAfter ? { servedNotAfter: new Date(r.servedNotAfter) } : {}),
    ...(r.daysLeft === undefined ? {} : { daysLeft: r.daysLeft }),
    ...(r.issuer === undefined ? {} : { issuer: r.issuer }),
    ...(r.thumbprint === undefined ? {} : { thumbprint: r.thumbprint }),
    ...(unreachableSince ? { unreachableSince } : {}),
  };
  return record;
}

/** One line for a result that needs a person: who, where, what, why; redacted and escaped. */
/** Longest certificate name quoted in a problem line: the line is one line for people. */
const MAX_NAME_IN_PROBLEM = 120;

function problemLine(r: InventoryResult): string {
  // A name may be 32,768 characters (the domain and the detail are bounded already).
  const who =
    r.certificateName === undefined
      ? r.domain
      : `${boundDetail(r.certificateName, MAX_NAME_IN_PROBLEM)} (${r.domain})`;
  const what = r.critical
    ? `${r.status} (critical)`
    : r.pastGrace
      ? `${r.status} past its grace`
      : r.status;
  // A certificate name comes from the service: escaped, so it cannot forge a log line or the
  // failed run's message (VerificationFailedError), which no log escaper sees.
  return escapeControl(redact(`${who}: ${what}: ${r.detail}`));
}

/** The records this run verifies: the inventory, what is watched, `also`, merged by name. */
async function recordsToVerify(
  runtime: Runtime,
  log: Logger,
  options: VerifyInventoryOptions,
  now: Date,
): Promise<InventoryRecord[]> {
  const { items, invalid } = await runtime.inventory.list();
  for (const line of invalid) {
    log.warn(
      `certsched verification skips an inventory row it cannot read (correct or delete it): ${redact(line)}`,
    );
  }
  const byName = new Map(items.map((r) => [r.certificateName, r]));
  const laid = (updates: readonly InventoryUpdate[]) => {
    for (const u of updates)
      byName.set(u.certificateName, mergeRecord(byName.get(u.certificateName), u));
  };
  if (options.names === undefined) {
    const watched = await watchedUpdates(runtime, byName, log, now);
    // Stored for the next runs (the grace clock needs a row); failure is a warning only.
    if (runtime.inventory.kind !== "none" && watched.length > 0) {
      try {
        await runtime.inventory.upsert(watched);
      } catch (error) {
        log.warn(
          `certsched could not store the watched certificates in the inventory (they are verified all the same): ${redact(ensureError(error).message)}`,
        );
      }
    }
    laid(watched);
  }
  laid(options.also ?? []);
  const current = new Set(runtime.settings.watch.map((e) => watchKey(e)));
  const wanted = options.names === undefined ? undefined : new Set(options.names);
  return [...byName.values()].filter((r) =>
    wanted
      ? wanted.has(r.certificateName)
      : // An endpoint no longer in CERTSCHED_WATCH stays in the table (its history) but is not checked.
        !isWatch(r) || current.has(r.certificateName),
  );
}

/**
 * Verifies the inventory: reads what each certificate's endpoints serve (or its vault holds),
 * judges it against the ledger's accepted renewal, keeps the unreachable grace, records each
 * certificate's result in the inventory and each change of status in the history. Throws only
 * when the inventory cannot be read; every probe failure is a result.
 */
export async function verifyInventory(
  runtime: Runtime,
  log: Logger,
  options: VerifyInventoryOptions,
): Promise<InventoryVerification> {
  const settings = options.settings ?? loadVerifySettings(options.env ?? process.env);
  const started = runtime.now();
  const records = await recordsToVerify(runtime, log, options, started);
  const checks = plan(records);
  // Only what is read can be pending or not-landed: no ledger reads for the unverifiable.
  const renewals = await acceptedRenewals(
    runtime,
    log,
    checks.flatMap((c) => (c.kind === "unverifiable" ? [] : c.owners)),
  );
  const kept = runtime.inventory.kind !== "none";
  const read = await mapWithConcurrency(checks, options.concurrency ?? 16, (check) =>
    runCheck(check, runtime, settings, renewals, options)
      .catch((error: unknown) => brokenCheck(check, error))
      // Every result's detail and domain, whatever made them, are bounded here (detail.ts):
      // both may carry the service's or a server's words.
      .then((r) => ({ ...withBoundDetail(r), domain: boundDetail(r.domain, MAX_DOMAIN) })),
  );
  const at = runtime.now();
  const graced = read.map((result, i) =>
    withGrace(result, (checks[i] as Check).owners, at, settings, kept),
  );
  const results = graced.map((g) => g.result);

  // Each record's verification: the worst of its domains' results. A record is "named" by a
  // result it comes first in; one that only shares another's domain (a watched endpoint a
  // certificate also names) keeps the reading but reports no change of its own: one domain,
  // one change, one message.
  const perRecord = new Map<
    string,
    {
      record: InventoryRecord;
      verification: VerificationRecord;
      result: InventoryResult;
      named: boolean;
    }
  >();
  graced.forEach((g, i) => {
    (checks[i] as Check).owners.forEach((owner, place) => {
      const known = perRecord.get(owner.certificateName);
      const named = place === 0 || known?.named === true;
      if (known && severity(known.result) <= severity(g.result)) {
        perRecord.set(owner.certificateName, { ...known, named });
        return;
      }
      perRecord.set(owner.certificateName, {
        record: owner,
        verification: toRecord(g.result, at, g.unreachableSince),
        result: g.result,
        named,
      });
    });
  });

  const changes: StatusChange[] = [];
  const events: CertificateEvent[] = [];
  const runId = options.runId ?? randomUUID();
  for (const { record, verification, result, named } of perRecord.values()) {
    if (!named) continue;
    const before = record.lastVerification;
    const critical = verification.critical === true;
    if (before?.status === verification.status && (before.critical === true) === critical) continue;
    changes.push({
      ...(isWatch(record) ? {} : { certificateName: record.certificateName }),
      domain: verification.domain,
      ...(before ? { from: before.status } : {}),
      to: verification.status,
      critical,
    });
    // History keeps changes, not every hourly reading: the inventory holds the latest one.
    events.push({
      at,
      certificateName: record.certificateName,
      id: record.id,
      event: verification.status === "not-landed" ? "not-landed" : "verified",
      trigger: options.trigger,
      runId,
      reason: verification.status,
      detail: redact(result.detail),
      expiryDate: record.serviceExpiry,
    });
  }

  if (kept) {
    const unsaved: { readonly name: string; readonly why: string }[] = [];
    await mapWithConcurrency([...perRecord.values()], STORAGE_CONCURRENCY, async (entry) => {
      try {
        await runtime.inventory.recordVerification(
          entry.record.certificateName,
          entry.verification,
        );
      } catch (error) {
        unsaved.push({ name: entry.record.certificateName, why: ensureError(error).message });
      }
    });
    const first = unsaved[0];
    if (first) {
      // Named: the storage's message says which table, not which certificate (issue 20).
      log.warn(
        `certsched could not record the verification of ${someNames(unsaved.map((u) => u.name))} in the inventory (the results stand; the unreachable grace may restart): ${redact(first.why)}`,
      );
    }
    await recordHistory(runtime.history, log, events);
  }

  const failing = results.filter(failsRun);
  return {
    at: started,
    results,
    counts: countInventoryStatuses(results),
    failed: failing.length > 0,
    problems: failing.map(problemLine),
    changes,
  };
}
