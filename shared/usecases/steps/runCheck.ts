import { ariQuestionOf } from "../../core/ari/ariRecord.js";
import type { AriQuestion } from "../../core/ports/ari.js";
import type { InventoryRecord } from "../../core/ports/inventory.js";
import { ACCEPTED_OUTCOMES, type Ledger } from "../../core/ports/ledger.js";
import type { KeyVaultSeam, ProbeOptions, Probes } from "../../core/ports/probes.js";
import { ctHashesOf, type InventoryResult } from "../../core/verification/inventoryResult.js";
import type { AcceptedRenewal } from "../../core/verification/judge.js";
import {
  type Check,
  nameOf,
  type TlsCheck,
  type VaultCheck,
} from "../../core/verification/plan.js";
import { SERVICE_NAME_RULE } from "../../core/verification/publicAddress.js";
import { judgeTarget } from "../../core/verification/targets.js";
import {
  type KeyVaultResult,
  type KeyVaultTarget,
  refusedVaultName,
  vaultVerdict,
} from "../../core/verification/vaultVerdict.js";
import type { VerifySettings } from "../../core/verification/verifySettings.js";
import { ensureError, ValidationError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { mapWithConcurrency } from "../../lib/pool.js";
import { redact } from "../../lib/redact/redact.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { probeTarget } from "../verifyDomains.js";
import { renewalForDomain, vaultToCompare } from "./vaultSync.js";

/** What reading one check needs: the probes, the ledger's accepted renewals, the clock. */
export interface CheckPorts {
  readonly probes: Probes;
  readonly ledger: Pick<Ledger, "kind" | "read">;
  readonly now: () => Date;
}

export interface CheckOptions {
  /** Trusted certificates instead of Node's default store (tests). */
  readonly ca?: ProbeOptions["ca"];
  readonly signal?: AbortSignal;
  /** Where the tests' fake vault is; production passes nothing. */
  readonly keyVault?: KeyVaultSeam;
}

/** Storage calls at once (ledger reads, inventory writes). */
export const STORAGE_CONCURRENCY = 8;

/**
 * Checks one vault certificate: `unverifiable` for a vault name Azure would never accept (it is
 * never read: it would become part of the host the vault token is sent to), else its current
 * version read and judged (core/verification/vaultVerdict.ts).
 */
export async function checkKeyVault(
  probes: Pick<Probes, "keyVault">,
  target: KeyVaultTarget,
  options: {
    readonly settings: Pick<VerifySettings, "warnDays" | "windowMs" | "timeoutMs"> &
      Partial<Pick<VerifySettings, "connectTo">>;
    readonly now: () => Date;
    readonly signal?: AbortSignal | undefined;
    readonly seam?: KeyVaultSeam | undefined;
  },
): Promise<KeyVaultResult> {
  const refused = refusedVaultName(target);
  if (refused) return refused;
  const read = await probes.keyVault(target, {
    settings: options.settings,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.seam ? { seam: options.seam } : {}),
  });
  // The clock is read after the read: daysLeft is about the moment the certificate was seen.
  return vaultVerdict(target, read, { now: options.now(), settings: options.settings });
}

/**
 * The renewal the ledger holds as accepted for each record with an id; none when the ledger is
 * off or cannot be read (a warning: pending and not-landed cannot be told then).
 */
export async function acceptedRenewals(
  ledger: Pick<Ledger, "kind" | "read">,
  log: Logger,
  records: readonly InventoryRecord[],
): Promise<Map<string, AcceptedRenewal>> {
  const renewals = new Map<string, AcceptedRenewal>();
  if (ledger.kind === "none") return renewals;
  const problems: string[] = [];
  const withId = records.filter((r) => r.id !== undefined);
  await mapWithConcurrency(withId, STORAGE_CONCURRENCY, async (record) => {
    try {
      const row = (await ledger.read(record.id as number))?.record;
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

/**
 * Where a result carries what ARI asks with, out of sight of every view of the result: a
 * symbol key is never serialized, and verifyInventory takes it off before anything else sees it.
 */
export const ARI_QUESTION: unique symbol = Symbol("ari-question");

/** A check's result, with the CertID and issuer of what was read (for ARI), if any. */
export type CheckResult = InventoryResult & { readonly [ARI_QUESTION]?: AriQuestion };

/** The result without what ARI asks with: what every view of the run sees. */
export function withoutAriQuestion(result: CheckResult): InventoryResult {
  const { [ARI_QUESTION]: _question, ...rest } = result;
  return rest;
}

/**
 * Reads a vault check's certificate and judges it. The vault's certificate is read once: ARI
 * asks with what it held.
 */
async function runVaultCheck(
  check: VaultCheck,
  ports: CheckPorts,
  settings: VerifySettings,
  renewal: AcceptedRenewal | undefined,
  options: CheckOptions,
): Promise<CheckResult> {
  const record = check.owners[0] as InventoryRecord;
  let question: AriQuestion | undefined;
  const probes: Pick<Probes, "keyVault"> = {
    keyVault: async (t, o) => {
      const read = await ports.probes.keyVault(t, o);
      question = ariQuestionOf(read.reached ? read.certificate : undefined);
      return read;
    },
  };
  const result = await checkKeyVault(
    probes,
    {
      keyVaultName: record.keyVaultName as string,
      keyVaultCertificateName: record.keyVaultCertificateName,
      certificateName: record.certificateName,
      renewal,
    },
    {
      settings,
      now: ports.now,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.keyVault ? { seam: options.keyVault } : {}),
    },
  );
  return question ? { ...result, [ARI_QUESTION]: question } : result;
}

/**
 * Probes a TLS check's endpoint and judges what it serves, compared with the vault certificate
 * it should serve, if any.
 */
async function runTlsCheck(
  check: TlsCheck,
  ports: CheckPorts,
  settings: VerifySettings,
  renewal: AcceptedRenewal | undefined,
  options: CheckOptions,
): Promise<CheckResult> {
  const bound = { endpoint: check.endpoint, publicOnly: check.publicOnly, renewal };
  const verifyOptions = {
    probes: ports.probes,
    settings,
    now: ports.now,
    ...(options.ca ? { ca: options.ca } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const probe = await probeTarget(bound, verifyOptions);
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
  const vault = await vaultToCompare(ports.probes, check.vaults, probe, {
    settings,
    signal: options.signal,
    seam: options.keyVault,
  });
  const result = judgeTarget(
    { ...bound, vault, renewal: renewalForDomain(renewal, vault) },
    probe,
    verifyOptions,
  );
  const read = probe.reached
    ? { notBefore: probe.certificate.notBefore.toISOString(), ...ctHashesOf(probe.certificate) }
    : {};
  const question = ariQuestionOf(probe.reached ? probe.certificate : undefined);
  return {
    ...(result as InventoryResult),
    ...read,
    ...nameOf(check.owners),
    ...(question ? { [ARI_QUESTION]: question } : {}),
  };
}

/** Reads one check's certificate (TLS or vault) and judges it. Never throws. */
export async function runCheck(
  check: Check,
  ports: CheckPorts,
  settings: VerifySettings,
  renewals: ReadonlyMap<string, AcceptedRenewal>,
  options: CheckOptions,
): Promise<CheckResult> {
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
    case "vault":
      return runVaultCheck(check, ports, settings, renewal, options);
    case "tls":
      return runTlsCheck(check, ports, settings, renewal, options);
  }
}

/**
 * A check that threw (a certificate no reader expected, a bug): that certificate is
 * unreachable, with why, and the run goes on. One certificate never stops the others.
 */
export function brokenCheck(check: Check, error: unknown): InventoryResult {
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
