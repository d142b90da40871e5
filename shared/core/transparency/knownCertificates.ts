import { MINUTE_MS } from "../../lib/time.js";
import type { CertificateEvent } from "../history/events.js";
import type { InventoryRecord } from "../ports/inventory.js";
import type { ServedFacts } from "../verification/served.js";
import type { KnownCertificate, SentRequest } from "./issuance.js";

/**
 * What certsched did and read, as the Certificate Transparency watch matches issuances against:
 * the certificates it has read (by public-key and TBS hash) and the requests it sent.
 */

/** A hash that can match: 64 hex characters (compared lower-case). */
const HASH = /^[0-9a-f]{64}$/;

const hashOf = (text: string | undefined) => {
  const lower = text?.toLowerCase();
  return lower !== undefined && HASH.test(lower) ? lower : undefined;
};

/**
 * Every certificate certsched has read: each record's last reading (in the vault when it read
 * Key Vault, else served), the receipt it keeps, and the before and after of history's events.
 * Only those with a readable hash; each once.
 */
export function knownCertificatesOf(
  records: readonly InventoryRecord[],
  events: readonly CertificateEvent[],
): KnownCertificate[] {
  const known = new Map<string, KnownCertificate>();
  const add = (
    certificateName: string,
    where: KnownCertificate["where"],
    facts: Pick<ServedFacts, "pubkeySha256" | "tbsSha256"> | undefined,
  ) => {
    const pubkeySha256 = hashOf(facts?.pubkeySha256);
    const tbsSha256 = hashOf(facts?.tbsSha256);
    if (pubkeySha256 === undefined && tbsSha256 === undefined) return;
    const key = [certificateName, where, pubkeySha256, tbsSha256].join("\n");
    if (!known.has(key)) known.set(key, { certificateName, where, pubkeySha256, tbsSha256 });
  };
  for (const record of records) {
    const reading = record.lastVerification;
    add(record.certificateName, reading?.source === "keyvault" ? "vault" : "served", reading);
    add(record.certificateName, "receipt", reading?.receipt?.before);
    add(record.certificateName, "receipt", reading?.receipt?.after);
  }
  for (const event of events) {
    add(event.certificateName, "receipt", event.before);
    add(event.certificateName, "receipt", event.after);
  }
  return [...known.values()];
}

/** A receipt's acceptance and its event are one request when this close (clocks, retries). */
const SAME_REQUEST_MS = 10 * MINUTE_MS;

/**
 * The requests certsched sent: each accepted renewal (a `renewal-scheduled` event, or the
 * receipt kept with the certificate when history has no event for it) and each certificate it
 * created (a record whose source is still `created`). Landed: the first `landed` event of the
 * certificate after it, or the receipt's landing, or (a creation) a reading after it that read a
 * certificate. Oldest first.
 */
export function sentRequestsOf(
  records: readonly InventoryRecord[],
  events: readonly CertificateEvent[],
): SentRequest[] {
  const byName = new Map(records.map((r) => [r.certificateName, r]));
  const oldestFirst = [...events].sort((a, b) => a.at.getTime() - b.at.getTime());
  const landedAfter = (certificateName: string, at: Date) =>
    oldestFirst.find(
      (e) => e.event === "landed" && e.certificateName === certificateName && e.at > at,
    )?.at;
  const sent: SentRequest[] = [];
  for (const event of oldestFirst) {
    const record = byName.get(event.certificateName);
    if (event.event !== "renewal-scheduled" || record === undefined) continue;
    sent.push(request(record, "renewal", event.at, landedAfter(record.certificateName, event.at)));
  }
  for (const record of records) {
    const receipt = record.lastVerification?.receipt;
    if (receipt === undefined) continue;
    const landedAt = receipt.landedAt ?? landedAfter(record.certificateName, receipt.acceptedAt);
    const same = sent.findIndex((s) => sameRequest(s, record.certificateName, receipt.acceptedAt));
    const found = sent[same];
    if (found === undefined) sent.push(request(record, "renewal", receipt.acceptedAt, landedAt));
    else if (found.landedAt === undefined && landedAt !== undefined) {
      sent[same] = { ...found, landedAt };
    }
  }
  for (const record of records) {
    if (record.source !== "created") continue;
    sent.push(request(record, "creation", record.firstSeen, creationLanded(record, landedAfter)));
  }
  return sent.sort((a, b) => a.sentAt.getTime() - b.sentAt.getTime());
}

function sameRequest(s: SentRequest, certificateName: string, at: Date): boolean {
  return (
    s.certificateName === certificateName &&
    Math.abs(s.sentAt.getTime() - at.getTime()) <= SAME_REQUEST_MS
  );
}

/** A creation landed when history says so, or when a later reading read a certificate. */
function creationLanded(
  record: InventoryRecord,
  landedAfter: (certificateName: string, at: Date) => Date | undefined,
): Date | undefined {
  const landed = landedAfter(record.certificateName, record.firstSeen);
  if (landed !== undefined) return landed;
  const reading = record.lastVerification;
  const read = reading?.thumbprint !== undefined && reading.thumbprint !== "";
  return read && reading.at > record.firstSeen ? reading.at : undefined;
}

function request(
  record: InventoryRecord,
  kind: SentRequest["kind"],
  sentAt: Date,
  landedAt: Date | undefined,
): SentRequest {
  return {
    certificateName: record.certificateName,
    names: namesOf(record),
    kind,
    sentAt,
    ...(landedAt === undefined ? {} : { landedAt }),
  };
}

/** The certificate's names, lower-case, no trailing dot, each once. */
function namesOf(record: InventoryRecord): string[] {
  const all = [record.rootDomain, ...(record.sanNames ?? [])]
    .filter((n): n is string => n !== undefined)
    .map((n) => n.trim().toLowerCase().replace(/\.$/, ""))
    .filter((n) => n !== "");
  return [...new Set(all)];
}
