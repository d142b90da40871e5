import type {
  KeyVaultRead,
  KeyVaultSeam,
  ProbeOptions,
  Probes,
  VaultCertificate,
} from "../../core/ports/probes.js";
import { type Confirmation, confirmEvent } from "../../core/vaultEvents/confirm.js";
import type { VaultEvent } from "../../core/vaultEvents/vaultEvent.js";
import type { WatchedCertificate } from "../../core/vaultEvents/watchedVaults.js";
import { isKeyVaultName } from "../../core/verification/keyVaultName.js";
import type { VerifySettings } from "../../core/verification/verifySettings.js";
import { escapeControl } from "../../lib/text/escapeControl.js";

/**
 * The vault's word on an event: the version it names and the current one, read with the
 * account's vault token. Nothing the payload says is acted on before this.
 */

/** What the tests put in place of production's trust and vault host; production passes none. */
export interface VaultEventOptions {
  /** Stops the reads and probes (the function's deadline). */
  readonly signal?: AbortSignal | undefined;
  /** Trusted certificates for the consumers' TLS probes instead of Node's store (tests). */
  readonly ca?: ProbeOptions["ca"];
  /** Where the tests' vault is and how to trust it (the simulator's, the fake's). */
  readonly keyVault?: KeyVaultSeam | undefined;
}

/** `probes` whose vault reads go through `seam` when a read names none (tests only). */
export function withVaultSeam(probes: Probes, seam: KeyVaultSeam | undefined): Probes {
  if (seam === undefined) return probes;
  return {
    tls: (endpoint, options) => probes.tls(endpoint, options),
    keyVault: (target, options) => probes.keyVault(target, { seam, ...options }),
  };
}

/** The vault certificate an event names, as the probes read it. */
export function vaultTarget(
  vaultName: string,
  nameInVault: string,
  certificate?: WatchedCertificate | undefined,
): VaultCertificate {
  return {
    keyVaultName: vaultName,
    keyVaultCertificateName: nameInVault,
    certificateName: certificate?.managed?.certificateName ?? nameInVault,
  };
}

export interface ReadPorts {
  readonly probes: Pick<Probes, "keyVault">;
  readonly settings: { verify(): VerifySettings };
}

/** A vault read of `target` (its current version, or `version`), with the options' seam. */
export function readVault(
  ports: ReadPorts,
  target: VaultCertificate,
  options: VaultEventOptions,
  version?: string,
): Promise<KeyVaultRead> {
  const { timeoutMs, connectTo } = ports.settings.verify();
  return ports.probes.keyVault(target, {
    settings: { timeoutMs, connectTo },
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.keyVault ? { seam: options.keyVault } : {}),
    ...(version === undefined ? {} : { version }),
  });
}

/** Refused: a vault name Azure would never accept is never read (it would become the host). */
export type Confirmed = Confirmation | { readonly kind: "refused"; readonly detail: string };

/** The version the event names and the current one, read at once, then judged (confirmEvent). */
export async function confirmWithVault(
  ports: ReadPorts,
  event: VaultEvent,
  certificate: WatchedCertificate | undefined,
  options: VaultEventOptions,
): Promise<Confirmed> {
  if (!isKeyVaultName(event.vaultName)) {
    return { kind: "refused", detail: `${escapeControl(event.vaultName)} is not a vault name` };
  }
  const target = vaultTarget(
    event.vaultName,
    certificate?.nameInVault ?? event.certificateName,
    certificate,
  );
  const [named, current] = await Promise.all([
    readVault(ports, target, options, event.version),
    readVault(ports, target, options),
  ]);
  return confirmEvent(event, named, current);
}
