import type { CertificateRecord } from "./records.js";

/** The JSON types spec 2.3 documents for the fields certsched keeps but does not read. */
const DOCUMENTED: Readonly<Record<string, readonly JsonType[]>> = {
  email: ["string", "null"],
  challengeType: ["string", "null"],
  orderUri: ["string", "null"],
  csrInfo: ["object", "null"],
  issueDate: ["string"],
  password: ["string", "null"],
  pfxString: ["string", "null"],
  certificateDownloadUrl: ["string", "null"],
  cloudSubscriptionId: ["string", "null"],
  dnsZoneResourceGroup: ["string", "null"],
  siteId: ["number", "null"],
};

type JsonType = "string" | "number" | "boolean" | "null" | "array" | "object";

function jsonType(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  const type = typeof value;
  return type === "string" || type === "number" || type === "boolean" ? type : "object";
}

/**
 * One line per field whose JSON type differs from the one spec 2.3 documents, across a whole
 * list (so a sweep warns once per field and type, not once per record). The field was kept and
 * did not stop a renewal; the line is for whoever compares the service with its spec. Values are
 * never quoted: password and pfxString are among these fields.
 */
export function recordWarnings(records: readonly CertificateRecord[]): string[] {
  const seen = new Map<string, number>();
  for (const record of records) {
    for (const [field, documented] of Object.entries(DOCUMENTED)) {
      const value: unknown = record[field];
      if (value === undefined) continue;
      const type = jsonType(value);
      if (documented.includes(type)) continue;
      const key = `${field}\u0000${type}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
  }
  return [...seen].map(([key, count]) => {
    const [field = "", type = ""] = key.split("\u0000");
    const documented = (DOCUMENTED[field] ?? []).join(" or ");
    const shown =
      type === "null" ? "null" : `${type === "array" || type === "object" ? "an" : "a"} ${type}`;
    return `the service sent ${field} as ${shown} in ${count} record(s), where spec 2.3 documents ${documented}: kept as sent, not used by certsched`;
  });
}
