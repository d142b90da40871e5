import { boundDetail } from "../../lib/text/boundDetail.js";
import { escapeControl } from "../../lib/text/escapeControl.js";
import { isKeyVaultName } from "../verification/keyVaultName.js";
import {
  MAX_EVENT_BYTES,
  MAX_EVENT_ID,
  MAX_EVENTS_PER_DELIVERY,
  type ReadEvent,
  VAULT_EVENT_TYPES,
  type VaultEvent,
  type VaultEventKind,
} from "./vaultEvent.js";

/**
 * Reads what Event Grid delivered to the trigger: one event or an array of them, as objects, a
 * JSON string or its bytes, in Event Grid's schema or CloudEvents 1.0. Every entry is checked on
 * its own, so one bad entry never costs the others; nothing here throws.
 */

/** The longest detail of a skipped entry, in characters. */
export const MAX_SKIP_DETAIL = 300;

export interface ReadDelivery {
  readonly events: readonly ReadEvent[];
  /** Entries past MAX_EVENTS_PER_DELIVERY: not read, only counted. */
  readonly beyond: number;
}

const KIND_BY_TYPE: ReadonlyMap<string, VaultEventKind> = new Map(
  Object.entries(VAULT_EVENT_TYPES).map(([kind, type]) => [
    type.toLowerCase(),
    kind as VaultEventKind,
  ]),
);

/** A delivery's items, as read. Never throws. */
export function readVaultEvents(input: unknown): ReadDelivery {
  let delivery: unknown = input;
  try {
    if (input instanceof Uint8Array) delivery = new TextDecoder().decode(input);
    if (typeof delivery === "string") delivery = JSON.parse(delivery);
  } catch {
    return { events: [skipped("malformed", "the delivery is not JSON")], beyond: 0 };
  }
  if (!Array.isArray(delivery)) return { events: [readEntry(() => delivery)], beyond: 0 };
  const entries = delivery;
  // Index by index: a sparse array's holes are entries too (map would leave them out).
  const read = Array.from({ length: Math.min(entries.length, MAX_EVENTS_PER_DELIVERY) }, (_, i) =>
    readEntry(() => entries[i]),
  );
  return { events: read, beyond: Math.max(0, delivery.length - MAX_EVENTS_PER_DELIVERY) };
}

function skipped(
  reason: "unknown-type" | "malformed",
  detail: string,
  id?: string | undefined,
): ReadEvent {
  return {
    kind: "skipped",
    reason,
    detail: boundDetail(detail, MAX_SKIP_DETAIL),
    ...(id === undefined ? {} : { id: shownId(id) }),
  };
}

/** An id as lines show it: escaped, at most MAX_EVENT_ID characters. */
const shownId = (id: string) => boundDetail(id, MAX_EVENT_ID);

/** One entry, whatever it is; an entry that cannot even be looked at is malformed. */
function readEntry(entry: () => unknown): ReadEvent {
  try {
    return checkEntry(entry());
  } catch {
    // A value no JSON makes (a cycle, a BigInt, a throwing getter): refused like a bad field.
    return skipped("malformed", "the event could not be read as JSON");
  }
}

function checkEntry(entry: unknown): ReadEvent {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    return skipped("malformed", "the event: must be a JSON object");
  }
  const e = entry as Record<string, unknown>;
  const id = typeof e.id === "string" && e.id !== "" ? e.id : undefined;
  const bytes = oversize(entry);
  if (bytes !== undefined) {
    return skipped(
      "malformed",
      `the event: must be at most ${MAX_EVENT_BYTES} bytes of JSON (it has ${bytes > UNCOUNTED ? `more than ${UNCOUNTED}` : bytes})`,
      id,
    );
  }
  if (id === undefined || id.length > MAX_EVENT_ID) {
    return skipped("malformed", `id: must be a string of 1-${MAX_EVENT_ID} characters`, id);
  }
  const cloud = "specversion" in e;
  if (cloud && e.specversion !== "1.0") {
    return skipped("malformed", `specversion: must be "1.0" (${shown(e.specversion)})`, id);
  }
  const typeField = cloud ? "type" : "eventType";
  const type = e[typeField];
  if (typeof type !== "string") {
    return skipped("malformed", `${typeField}: must be a string`, id);
  }
  const kind = KIND_BY_TYPE.get(type.toLowerCase());
  if (kind === undefined) {
    return skipped("unknown-type", `event type ${shown(type)} is not one certsched takes`, id);
  }
  const fields = readFields(e, cloud);
  if (typeof fields === "string") return skipped("malformed", fields, id);
  return { kind: "event", event: vaultEvent(id, kind, cloud, fields) };
}

function vaultEvent(id: string, kind: VaultEventKind, cloud: boolean, f: ReadFields): VaultEvent {
  return {
    id: shownId(id),
    kind,
    schema: cloud ? "cloudevents" : "eventgrid",
    vaultName: f.vaultName.toLowerCase(),
    certificateName: f.certificateName,
    version: f.version,
    subscriptionId: f.subscriptionId.toLowerCase(),
    resourceGroup: f.resourceGroup,
    eventTime: f.eventTime,
    claimedNotBefore: f.notBefore,
    claimedExpiry: f.expiry,
  };
}

/** A value in a detail: quoted, escaped, short (the whole detail is bounded again). */
export function shown(value: unknown): string {
  if (typeof value === "string")
    return `"${escapeControl(value.slice(0, 80))}"${value.length > 80 ? "…" : ""}`;
  if (value === undefined) return "absent";
  if (value === null) return "null";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return Array.isArray(value) ? "an array" : "an object";
}

/** Past this many characters of JSON an entry's bytes are not counted: "more than" it. */
const UNCOUNTED = 10 * MAX_EVENT_BYTES;

/**
 * The UTF-8 length of the entry's JSON when over MAX_EVENT_BYTES (Infinity past UNCOUNTED),
 * undefined within it. Each character is 1 to 3 bytes (a surrogate pair 4, 2 per half), so a
 * short JSON is within uncounted: 10,000 events read fast.
 */
function oversize(entry: object): number | undefined {
  const json = JSON.stringify(entry);
  if (json.length * 3 <= MAX_EVENT_BYTES) return undefined;
  if (json.length > UNCOUNTED) return Number.POSITIVE_INFINITY;
  let bytes = 0;
  for (let i = 0; i < json.length; i += 1) {
    const code = json.charCodeAt(i);
    bytes += code < 0x80 ? 1 : code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 2 : 3;
  }
  return bytes > MAX_EVENT_BYTES ? bytes : undefined;
}

/** What the checks of the topic and `data` found. */
interface ReadFields {
  readonly subscriptionId: string;
  readonly resourceGroup: string;
  readonly vaultName: string;
  readonly certificateName: string;
  readonly version: string;
  readonly eventTime: Date | undefined;
  readonly notBefore: Date | undefined;
  readonly expiry: Date | undefined;
}

/**
 * The vault's resource id, as Event Grid's `topic` and CloudEvents' `source` give it. A resource
 * group is 1-90 letters, digits, underscores, hyphens, periods and parentheses.
 */
const VAULT_RESOURCE =
  /^\/subscriptions\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/resourceGroups\/([-\w.()\p{L}\p{N}]{1,90})\/providers\/Microsoft\.KeyVault\/vaults\/([^/]{1,64})$/iu;
const CERTIFICATE_NAME = /^[0-9A-Za-z-]{1,127}$/;
const VERSION = /^[0-9A-Za-z]{1,64}$/;
/** Key Vault's `Id`: `https://{vault}.{vault suffix}/certificates/{name}/{version}`. */
const OBJECT_ID = /^https:\/\/([^./]+)\.[^/]+\/certificates\/([^/]+)\/([^/?#]+)$/i;
const VAULT_RULE = "must be a Key Vault name (3-24 letters, digits, hyphens)";

/** The topic (or source) and `data` checked, or the first rule broken. */
function readFields(e: Record<string, unknown>, cloud: boolean): ReadFields | string {
  const topicField = cloud ? "source" : "topic";
  const topic = e[topicField];
  const where = typeof topic === "string" ? VAULT_RESOURCE.exec(topic) : null;
  const [, subscriptionId = "", resourceGroup = "", topicVault = ""] = where ?? [];
  if (where === null || resourceGroup.endsWith(".")) {
    return `${topicField}: must be /subscriptions/{id}/resourceGroups/{group}/providers/Microsoft.KeyVault/vaults/{name} (${shown(topic)})`;
  }
  if (!isKeyVaultName(topicVault))
    return `${topicField}: the vault ${VAULT_RULE} (${shown(topicVault)})`;
  const data = e.data;
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return `data: must be a JSON object (${shown(data)})`;
  }
  const d = data as Record<string, unknown>;
  const names = readNames(d, topicVault);
  if (typeof names === "string") return names;
  const notBefore = unixSeconds(d, "NBF");
  if (typeof notBefore === "string") return notBefore;
  const expiry = unixSeconds(d, "EXP");
  if (typeof expiry === "string") return expiry;
  return {
    subscriptionId,
    resourceGroup,
    ...names,
    eventTime: dateOf(cloud ? e.time : e.eventTime),
    notBefore,
    expiry,
  };
}

/** VaultName, ObjectType, ObjectName, Version and Id, each against its rule and the others. */
function readNames(
  d: Record<string, unknown>,
  topicVault: string,
): Pick<ReadFields, "vaultName" | "certificateName" | "version"> | string {
  const { VaultName: vault, ObjectType: type, ObjectName: name, Version: version, Id: id } = d;
  if (typeof vault !== "string" || !isKeyVaultName(vault)) {
    return `data.VaultName: ${VAULT_RULE} (${shown(vault)})`;
  }
  if (vault.toLowerCase() !== topicVault.toLowerCase()) {
    return `data.VaultName: must be the topic's vault ${shown(topicVault)} (${shown(vault)})`;
  }
  if (type !== "Certificate") return `data.ObjectType: must be "Certificate" (${shown(type)})`;
  if (typeof name !== "string" || !CERTIFICATE_NAME.test(name)) {
    return `data.ObjectName: must be a certificate name (1-127 letters, digits, hyphens) (${shown(name)})`;
  }
  if (typeof version !== "string" || !VERSION.test(version)) {
    return `data.Version: must be a version (1-64 letters and digits) (${shown(version)})`;
  }
  if (id !== undefined && id !== null) {
    const parts = typeof id === "string" ? OBJECT_ID.exec(id) : null;
    const agrees =
      parts !== null &&
      [vault, name, version].every((v, i) => parts[i + 1]?.toLowerCase() === v.toLowerCase());
    if (!agrees) {
      return `data.Id: must be https://{vault}.vault.azure.net/certificates/{name}/{version} of the event's VaultName, ObjectName and Version (${shown(id)})`;
    }
  }
  return { vaultName: vault, certificateName: name, version };
}

/** NBF / EXP: Unix seconds, absent or null; anything else breaks the rule. */
function unixSeconds(d: Record<string, unknown>, field: "NBF" | "EXP"): Date | undefined | string {
  const value = d[field];
  if (value === undefined || value === null) return undefined;
  const at = typeof value === "number" ? new Date(value * 1000) : undefined;
  if (at === undefined || Number.isNaN(at.getTime())) {
    return `data.${field}: must be Unix seconds (a number) or null (${shown(value)})`;
  }
  return at;
}

/** An ISO-8601 time, or undefined when absent or unreadable. */
function dateOf(value: unknown): Date | undefined {
  if (typeof value !== "string" || value.length > 64) return undefined;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : at;
}
