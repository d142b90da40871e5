import { ensureError, UnstoredError } from "../../lib/errors.js";
import type { Logger } from "../../lib/log.js";
import { redact } from "../../lib/redact/redact.js";
import { someNames } from "../../lib/text/names.js";
import type { CreateCertificateInput } from "../certificate/createRequest.js";
import type { CertificateRecord } from "../certificate/records.js";
import type { Inventory, InventorySource, InventoryUpdate } from "../ports/inventory.js";

/**
 * How certificates get into the inventory: each record seen in a due list, each
 * certificate created or renewed through certsched, each name looked up for
 * CERTSCHED_WATCH_CERTIFICATES. Writing the inventory never fails (nor holds up longer than
 * the storage's own timeout) the sweep or the renewal it follows: a failure is a warning.
 */

/** What remembering needs: a AccountPorts has it all. */
export interface RememberPorts {
  readonly inventory: Inventory;
  readonly now: () => Date;
}

const known = (value: string | null | undefined) => (value === null ? undefined : value);

/** What a service record (spec 2.3: due list, Get Certificate) says about a certificate. */
export function fromServiceRecord(
  record: CertificateRecord,
  source: InventorySource,
  seenAt: Date,
): InventoryUpdate {
  return {
    certificateName: record.certificateName,
    id: record.id,
    subscriptionId: String(record.subscriptionId),
    target: record.target,
    renewal: record.renewal,
    rootDomain: known(record.rootDomain),
    keyVaultName: known(record.keyVaultName),
    keyVaultCertificateName: known(record.keyVaultCertificateName),
    serviceExpiry: record.expiryDate,
    challengeType: knownText(record.challengeType),
    cloudSubscriptionId: knownText(record.cloudSubscriptionId),
    dnsZoneResourceGroup: knownText(record.dnsZoneResourceGroup),
    source,
    seenAt,
  };
}

/** A field certsched does not validate (spec 2.3 says "string or null"): kept only as text. */
function knownText(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/** What a create request says: no id or expiry yet (the service answers "scheduled"). */
export function fromCreateInput(input: CreateCertificateInput, seenAt: Date): InventoryUpdate {
  return {
    certificateName: input.certificateName,
    target: input.target,
    rootDomain: input.rootDomain,
    challengeType: input.challengeType,
    cloudSubscriptionId: input.cloudSubscriptionId,
    ...("dnsZoneResourceGroup" in input
      ? { dnsZoneResourceGroup: input.dnsZoneResourceGroup }
      : {}),
    ...("keyVaultName" in input ? { keyVaultName: input.keyVaultName } : {}),
    ...("cloudAppServiceName" in input
      ? {
          appServiceResourceGroup: input.cloudAppServiceResourceGroup,
          // spec 2.1: an app in a slot is named sitename/slotname.
          appServiceName: input.cloudAppServiceName.split("/")[0],
          appServiceSlot: input.cloudAppServiceSlotName,
        }
      : {}),
    source: "created",
    seenAt,
  };
}

/** Stores `updates`; a failure is logged as a warning and swallowed. Resolves false then. */
export async function remember(
  deps: RememberPorts,
  log: Logger,
  updates: readonly InventoryUpdate[],
): Promise<boolean> {
  if (deps.inventory.kind === "none" || updates.length === 0) return false;
  try {
    await deps.inventory.upsert(updates);
    return true;
  } catch (error) {
    // The ones the inventory could not store, when it says which; else every one given.
    const which = someNames(
      error instanceof UnstoredError
        ? error.certificateNames
        : updates.map((u) => u.certificateName),
    );
    log.warn(
      `certsched could not update the inventory for ${which} (the work itself is done; verification may not watch them until the next sweep): ${redact(ensureError(error).message)}`,
    );
    return false;
  }
}

/** A certificate created through certsched (CLI create, POST /api/certificates). */
export function rememberCreated(
  deps: RememberPorts,
  log: Logger,
  input: CreateCertificateInput,
): Promise<boolean> {
  return remember(deps, log, [fromCreateInput(input, deps.now())]);
}

/** A certificate renewed by name (CLI renew, POST /api/certificates/{name}/renew). */
export function rememberRenewed(
  deps: RememberPorts,
  log: Logger,
  record: CertificateRecord,
): Promise<boolean> {
  return remember(deps, log, [fromServiceRecord(record, "renewed", deps.now())]);
}
