import type { KeyVaultRead } from "../../shared/core/ports/probes.js";
import type { VaultAlert } from "../../shared/core/vaultEvents/vaultAlert.js";
import {
  VAULT_EVENT_TYPES,
  type VaultEvent,
  type VaultEventKind,
} from "../../shared/core/vaultEvents/vaultEvent.js";
import type { VaultVersion } from "../../shared/core/verification/syncCheck.js";

/**
 * Key Vault certificate events as Event Grid delivers them, in its own schema and in
 * CloudEvents 1.0, shaped like Key Vault's published samples: the topic (or source) is the
 * vault's resource id, the subject the certificate's name, and the data carries `Id`,
 * `VaultName`, `ObjectType`, `ObjectName`, `Version`, `NBF`, `EXP` (Unix seconds).
 */

export interface SampleEventInit {
  readonly kind?: VaultEventKind;
  readonly vaultName?: string;
  readonly certificateName?: string;
  readonly version?: string;
  readonly subscriptionId?: string;
  readonly resourceGroup?: string;
  /** The event's id; a fixed GUID by default. */
  readonly id?: string;
  /** The payload's NBF / EXP, as dates (written as Unix seconds); null writes null. */
  readonly notBefore?: Date | null;
  readonly expiry?: Date | null;
  /** When Event Grid says it happened. */
  readonly eventTime?: Date;
  /** Fields merged into `data` over the built ones (undefined removes a field). */
  readonly data?: Readonly<Record<string, unknown>>;
}

export const SAMPLE_SUBSCRIPTION = "00000000-1111-2222-3333-444444444444";
export const SAMPLE_RESOURCE_GROUP = "rg-certs";
export const SAMPLE_VAULT = "kv-contoso";
export const SAMPLE_CERTIFICATE = "www-contoso-example";
export const SAMPLE_VERSION = "9f4b3c2a1d0e4f5a8b7c6d5e4f3a2b1c";
export const SAMPLE_EVENT_ID = "6e1e3f3c-7b7a-4c0c-9d6e-2a1b0c9d8e7f";
export const SAMPLE_NOT_BEFORE = new Date("2026-11-30T10:00:00Z");
export const SAMPLE_EXPIRY = new Date("2027-02-28T10:00:00Z");
export const SAMPLE_EVENT_TIME = new Date("2026-11-30T10:05:00Z");

/** The vault's resource id: Event Grid's `topic`, CloudEvents' `source`. */
export function vaultResourceId(init: SampleEventInit = {}): string {
  const subscription = init.subscriptionId ?? SAMPLE_SUBSCRIPTION;
  const group = init.resourceGroup ?? SAMPLE_RESOURCE_GROUP;
  const vault = init.vaultName ?? SAMPLE_VAULT;
  return `/subscriptions/${subscription}/resourceGroups/${group}/providers/Microsoft.KeyVault/vaults/${vault}`;
}

const unixSeconds = (at: Date | null) => (at === null ? null : Math.floor(at.getTime() / 1000));

/** The `data` both schemas carry. */
export function sampleData(init: SampleEventInit = {}): Record<string, unknown> {
  const vault = init.vaultName ?? SAMPLE_VAULT;
  const name = init.certificateName ?? SAMPLE_CERTIFICATE;
  const version = init.version ?? SAMPLE_VERSION;
  const data: Record<string, unknown> = {
    Id: `https://${vault}.vault.azure.net/certificates/${name}/${version}`,
    VaultName: vault,
    ObjectType: "Certificate",
    ObjectName: name,
    Version: version,
    NBF: unixSeconds(init.notBefore === undefined ? SAMPLE_NOT_BEFORE : init.notBefore),
    EXP: unixSeconds(init.expiry === undefined ? SAMPLE_EXPIRY : init.expiry),
  };
  for (const [field, value] of Object.entries(init.data ?? {})) {
    if (value === undefined) delete data[field];
    else data[field] = value;
  }
  return data;
}

/** One event in Event Grid's own schema. */
export function eventGridEvent(init: SampleEventInit = {}): Record<string, unknown> {
  return {
    id: init.id ?? SAMPLE_EVENT_ID,
    topic: vaultResourceId(init),
    subject: init.certificateName ?? SAMPLE_CERTIFICATE,
    eventType: VAULT_EVENT_TYPES[init.kind ?? "new-version"],
    eventTime: (init.eventTime ?? SAMPLE_EVENT_TIME).toISOString(),
    data: sampleData(init),
    dataVersion: "1",
    metadataVersion: "1",
  };
}

/** The same event in CloudEvents 1.0. */
export function cloudEvent(init: SampleEventInit = {}): Record<string, unknown> {
  return {
    specversion: "1.0",
    id: init.id ?? SAMPLE_EVENT_ID,
    source: vaultResourceId(init),
    subject: init.certificateName ?? SAMPLE_CERTIFICATE,
    type: VAULT_EVENT_TYPES[init.kind ?? "new-version"],
    time: (init.eventTime ?? SAMPLE_EVENT_TIME).toISOString(),
    datacontenttype: "application/json",
    data: sampleData(init),
  };
}

/** The VaultEvent readVaultEvents makes of `eventGridEvent(init)` (no dates unless given). */
export function sampleEvent(init: SampleEventInit & Partial<VaultEvent> = {}): VaultEvent {
  return {
    id: init.id ?? SAMPLE_EVENT_ID,
    kind: init.kind ?? "new-version",
    schema: init.schema ?? "eventgrid",
    vaultName: (init.vaultName ?? SAMPLE_VAULT).toLowerCase(),
    certificateName: init.certificateName ?? SAMPLE_CERTIFICATE,
    version: init.version ?? SAMPLE_VERSION,
    subscriptionId: init.subscriptionId ?? SAMPLE_SUBSCRIPTION,
    resourceGroup: init.resourceGroup ?? SAMPLE_RESOURCE_GROUP,
    eventTime: init.eventTime,
    claimedNotBefore: init.claimedNotBefore,
    claimedExpiry: init.claimedExpiry,
  };
}

export interface VersionInit {
  readonly version?: string | undefined;
  /** Upper-case hex; derived from the version by default. */
  readonly thumbprint?: string;
  readonly notBefore?: Date;
  readonly notAfter?: Date;
  readonly createdOn?: Date | undefined;
}

const thumbprintOf = (version: string) =>
  Buffer.from(version).toString("hex").toUpperCase().padEnd(64, "0").slice(0, 64);

/** A vault's read of one version, as the Key Vault probe answers it. */
export function vaultRead(init: VersionInit = {}): KeyVaultRead {
  const version = "version" in init ? init.version : SAMPLE_VERSION;
  const notBefore = init.notBefore ?? SAMPLE_NOT_BEFORE;
  return {
    reached: true,
    connectedTo: `${SAMPLE_VAULT}.vault.azure.net:443`,
    certificate: {
      notBefore,
      notAfter: init.notAfter ?? SAMPLE_EXPIRY,
      issuer: "CN=Test CA",
      subject: "CN=www.contoso.example",
      serial: "0A",
      thumbprint: init.thumbprint ?? thumbprintOf(version ?? "none"),
      altNames: ["DNS:www.contoso.example"],
    },
    chainProblem: undefined,
    nameProblem: undefined,
    version,
    createdOn: "createdOn" in init ? init.createdOn : notBefore,
  };
}

/** A read that failed (`not-found`: the vault holds no such version). */
export const failedRead = (
  failure: Extract<KeyVaultRead, { reached: false }>["failure"],
  detail = failure === "not-found" ? "the vault answered 404" : `the vault read failed: ${failure}`,
): KeyVaultRead => ({ reached: false, failure, detail });

/** The VaultVersion verification makes of `vaultRead(init)`. */
export function vaultVersion(init: VersionInit = {}): VaultVersion {
  const read = vaultRead(init);
  if (!read.reached) throw new Error("unreachable");
  return {
    name: `${SAMPLE_VAULT}/${SAMPLE_CERTIFICATE}`,
    version: read.version,
    thumbprint: read.certificate.thumbprint,
    notBefore: read.certificate.notBefore,
    notAfter: read.certificate.notAfter,
    createdOn: read.createdOn,
  };
}

/** An alert of the sample certificate: unmanaged, near expiry, of account contoso. */
export function sampleAlert(fields: Partial<VaultAlert> = {}): VaultAlert {
  return {
    account: "contoso",
    kind: "unmanaged",
    event: "near-expiry",
    vaultName: SAMPLE_VAULT,
    certificateName: SAMPLE_CERTIFICATE,
    version: SAMPLE_VERSION,
    subscriptionId: SAMPLE_SUBSCRIPTION,
    resourceGroup: SAMPLE_RESOURCE_GROUP,
    expiresAt: SAMPLE_EXPIRY,
    detail: `unmanaged certificate expiring: ${SAMPLE_VAULT}/${SAMPLE_CERTIFICATE} in subscription ${SAMPLE_SUBSCRIPTION}, resource group ${SAMPLE_RESOURCE_GROUP}, version ${SAMPLE_VERSION} expires at 2027-02-28T10:00:00Z (20 days)`,
    ...fields,
  };
}
