import { boundDetail, withBoundDetail } from "../../lib/text/boundDetail.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import type { KeyVaultRead, VaultCertificate } from "../ports/probes.js";
import { ctHashesOf, type InventoryResult } from "./inventoryResult.js";
import { type AcceptedRenewal, daysLeftOf, judge } from "./judge.js";
import { isKeyVaultName } from "./keyVaultName.js";
import { MAX_FACT } from "./served.js";
import type { VerifySettings } from "./verifySettings.js";

/**
 * The Key Vault check's verdict: the vault's current version judged like a served
 * certificate. There is no handshake, so no chain or name check: what matters is that the
 * vault's current version is the renewed one, and how long it has left.
 */

/** A certificate to look up, as the inventory knows it, with the renewal it waits for. */
export interface KeyVaultTarget extends VaultCertificate {
  readonly renewal?: AcceptedRenewal | undefined;
}

/** A vault certificate's result: `{vault}/{certificate}`, source `keyvault`. */
export type KeyVaultResult = InventoryResult & { readonly source: "keyvault" };

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;

function baseOf(target: KeyVaultTarget) {
  const vaultCertificate = target.keyVaultCertificateName || target.certificateName;
  const domain = escapeControl(`${target.keyVaultName}/${vaultCertificate}`);
  return { domain, certificateName: target.certificateName, source: "keyvault" as const };
}

/**
 * `unverifiable` for a vault name Azure would never accept (it would become part of the host
 * the vault token is sent to); undefined for a name that may be read.
 */
export function refusedVaultName(target: KeyVaultTarget): KeyVaultResult | undefined {
  if (isKeyVaultName(target.keyVaultName)) return undefined;
  const base = baseOf(target);
  return {
    ...base,
    status: "unverifiable",
    detail: `"${base.domain}" does not name a Key Vault: a vault name is 3-24 letters, digits and single hyphens, starting with a letter`,
  };
}

/**
 * The result of one read, judged by the same chain of checks as a served certificate (expired,
 * pending / not-landed against an accepted renewal, expiring, ok); `unreachable` when it could
 * not be read. `now` is read after the read: daysLeft is about the moment it was seen.
 */
export function vaultVerdict(
  target: KeyVaultTarget,
  read: KeyVaultRead,
  options: { readonly now: Date; readonly settings: Pick<VerifySettings, "warnDays" | "windowMs"> },
): KeyVaultResult {
  const base = baseOf(target);
  if (!read.reached) {
    return withBoundDetail({ ...base, status: "unreachable" as const, detail: read.detail });
  }
  const { now } = options;
  const verdict = judge({ host: base.domain, port: 443 }, read, {
    now,
    warnDays: options.settings.warnDays,
    windowMs: options.settings.windowMs,
    renewal: target.renewal,
  });
  const { critical, ...rest } = verdict;
  const days = daysLeftOf(read.certificate.notAfter, now);
  const detail =
    verdict.status === "ok"
      ? `the vault's current version has ${plural(days, "day")} left (expires ${read.certificate.notAfter.toISOString()})`
      : verdict.detail.replace("the certificate served", "the vault's current version");
  return withBoundDetail({
    ...base,
    ...rest,
    notBefore: read.certificate.notBefore.toISOString(),
    ...(read.version === undefined ? {} : { version: boundDetail(read.version, MAX_FACT) }),
    ...ctHashesOf(read.certificate),
    detail,
    ...(critical ? { critical: true as const } : {}),
  });
}
