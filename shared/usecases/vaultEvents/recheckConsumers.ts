import { randomUUID } from "node:crypto";
import type { RecheckMessage } from "../../core/ports/vaultEvents.js";
import { isKeyVaultName } from "../../core/verification/keyVaultName.js";
import { vaultVersionOf } from "../../core/verification/syncCheck.js";
import { CertschedError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { boundDetail } from "../../lib/text/boundDetail.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import {
  checkConsumers,
  historyName,
  record,
  type VaultEventsPorts,
  vaultEventOf,
} from "./checkConsumers.js";
import { readVault, type VaultEventOptions, vaultTarget } from "./confirmWithVault.js";

/**
 * A later check of a vault version's consumers, as the recheck queue brings it: the vault's
 * current version read again (a newer one ends these rechecks: its own event checks it), then
 * the bound names verified; the next recheck sent while some consumer is behind and the sync
 * window lasts. At the window's end the verification itself says not-synced.
 */

const CERTIFICATE_NAME = /^[0-9A-Za-z-]{1,127}$/;
const VERSION = /^[0-9A-Za-z]{1,64}$/;
/** Bounds on a message's names: what one vault certificate is bound to. */
const MAX_NAMES = 500;
const MAX_NAME = 300;
const MAX_ATTEMPT = 1000;

const text = (v: unknown, max: number): v is string =>
  typeof v === "string" && v.length > 0 && v.length <= max;

/** The message when it is one this version sends; else why not (escaped, bounded). */
export function readRecheckMessage(value: unknown): RecheckMessage | string {
  let m: unknown = value;
  if (typeof m === "string" || m instanceof Uint8Array) {
    try {
      m = JSON.parse(typeof m === "string" ? m : Buffer.from(m).toString("utf8"));
    } catch {
      return "the message is not JSON";
    }
  }
  if (typeof m !== "object" || m === null || Array.isArray(m))
    return "the message is not an object";
  const r = m as Record<string, unknown>;
  if (!text(r.account, 64)) return "account: must be an account name";
  if (!text(r.vaultName, 24) || !isKeyVaultName(r.vaultName))
    return "vaultName: must be a Key Vault name";
  if (!text(r.certificateName, 127) || !CERTIFICATE_NAME.test(r.certificateName))
    return "certificateName: must be a vault certificate name";
  if (!text(r.version, 64) || !VERSION.test(r.version)) return "version: must be a vault version";
  if (
    !Array.isArray(r.names) ||
    r.names.length > MAX_NAMES ||
    !r.names.every((n) => text(n, MAX_NAME))
  )
    return `names: must be at most ${MAX_NAMES} names`;
  if (!text(r.until, 40) || Number.isNaN(Date.parse(r.until)))
    return "until: must be an ISO-8601 time";
  const attempt = r.attempt;
  if (
    typeof attempt !== "number" ||
    !Number.isInteger(attempt) ||
    attempt < 1 ||
    attempt > MAX_ATTEMPT
  )
    return `attempt: must be a whole number from 1 to ${MAX_ATTEMPT}`;
  return {
    account: r.account,
    vaultName: r.vaultName.toLowerCase(),
    certificateName: r.certificateName,
    version: r.version,
    names: r.names as string[],
    until: r.until,
    attempt,
  };
}

/** `certsched vault recheck <vault>/<certificate> version <v> (account "a", attempt n): <outcome>` */
export function recheckLine(message: RecheckMessage, outcome: string): string {
  const where = `${message.vaultName}/${message.certificateName} version ${message.version}`;
  const of = `account "${message.account}", attempt ${message.attempt}`;
  return boundDetail(escapeControl(`certsched vault recheck ${where} (${of}): ${outcome}`), 1000);
}

/**
 * One recheck. Throws (so the queue delivers it again) when the vault cannot be read or the next
 * recheck cannot be sent; an account this deployment does not declare is a line, not a retry.
 */
export async function recheckConsumers(
  services: VaultEventsPorts,
  message: RecheckMessage,
  log: Logger,
  options: VaultEventOptions = {},
): Promise<void> {
  if (!services.accounts.includes(message.account)) {
    log.warn(recheckLine(message, "dropped: the account is not one of this deployment's"));
    return;
  }
  const ports = services.forAccount(message.account);
  const target = vaultTarget(message.vaultName, message.certificateName);
  const read = await readVault(ports, target, options);
  const current = vaultVersionOf(`${message.vaultName}/${message.certificateName}`, read);
  if (!read.reached && read.failure === "not-found") {
    log.warn(recheckLine(message, "the vault no longer holds the certificate: no more rechecks"));
    return;
  }
  if (!read.reached || current === undefined) {
    throw new CertschedError(
      "UPSTREAM_UNREACHABLE",
      recheckLine(message, `the vault could not be read: ${read.reached ? "" : read.detail}`),
      { retriable: true },
    );
  }
  const kept = message.names.find((n) => !n.startsWith("watch:"));
  const name = historyName(kept, message.vaultName, message.certificateName);
  const done = async (outcome: string) => {
    log.info(recheckLine(message, outcome));
    await record(ports, log, [
      vaultEventOf(ports.now(), name, undefined, "new-version", outcome, randomUUID()),
    ]);
  };
  if (
    current.version !== undefined &&
    current.version.toLowerCase() !== message.version.toLowerCase()
  ) {
    await done(`version ${current.version} is current now; its own event checks it`);
    return;
  }
  const checked = await checkConsumers(
    ports,
    services.app.recheckQueue,
    log,
    {
      account: message.account,
      vaultName: message.vaultName,
      certificateName: message.certificateName,
      version: current,
      names: message.names,
      nextAttempt: message.attempt + 1,
      until: new Date(message.until),
    },
    options,
  );
  if (checked.rechecking) log.info(recheckLine(message, checked.outcome));
  else await done(checked.outcome);
}
