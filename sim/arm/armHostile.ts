import {
  appServiceCertificateRow,
  GRAPH_TYPES,
  type GraphRow,
  siteRow,
  vaultRow,
} from "./armEstate.js";

/**
 * Rows an estate reader must survive, as Resource Graph could send them: dates in the formats
 * Azure has used and some it has not, thumbprints in lower case and with spaces, names with
 * control characters and HTML, a row of 5 MB, and many rows at once.
 */

/** Expiry dates, one App Service certificate each (name `odd-date-{i}`). */
export const HOSTILE_DATES: readonly string[] = [
  "2027-01-01T00:00:00+00:00",
  "2027-01-01T00:00:00Z",
  "2027-01-01T00:00:00.0000000Z",
  "1/1/2027 12:00:00 AM",
  "/Date(1798761600000)/",
  "2027-01-01",
  "Fri, 01 Jan 2027 00:00:00 GMT",
  "0001-01-01T00:00:00",
  "9999-12-31T23:59:59.9999999Z",
  "not a date",
  "",
];

/** Thumbprints of one certificate (SHA-1 `HOSTILE_THUMBPRINT`) as upstreams have written it. */
export const HOSTILE_THUMBPRINT = "3D2F9A1C8B7E6D5F4A3B2C1D0E9F8A7B6C5D4E3F";
export const HOSTILE_THUMBPRINTS: readonly string[] = [
  HOSTILE_THUMBPRINT.toLowerCase(),
  HOSTILE_THUMBPRINT.replace(/(..)/g, "$1 ").trim(),
  HOSTILE_THUMBPRINT.toLowerCase().replace(/(..)/g, "$1:").slice(0, -1),
  `\u200e${HOSTILE_THUMBPRINT}`,
];

/** A name with control characters, an ANSI escape and HTML. */
export const HOSTILE_NAME = "evil\u001b[31m\r\n<script>alert(1)</script>\u0000";

/** The hostile rows of one subscription: odd dates, odd thumbprints, hostile names. */
export function hostileEstateRows(subscriptionId: string): GraphRow[] {
  const at = { subscriptionId, resourceGroup: "rg-hostile" };
  const rows = HOSTILE_DATES.map((expiresAt, i) =>
    appServiceCertificateRow({
      ...at,
      name: `odd-date-${i}`,
      thumbprint: HOSTILE_THUMBPRINT,
      expiresAt,
      hostNames: [`d${i}.hostile.example`],
    }),
  );
  HOSTILE_THUMBPRINTS.forEach((thumbprint, i) => {
    rows.push(
      appServiceCertificateRow({
        ...at,
        name: `odd-thumbprint-${i}`,
        thumbprint,
        expiresAt: "2027-01-01T00:00:00+00:00",
        hostNames: [`t${i}.hostile.example`],
      }),
    );
  });
  rows.push(
    appServiceCertificateRow({
      ...at,
      name: HOSTILE_NAME,
      thumbprint: HOSTILE_THUMBPRINT,
      expiresAt: "2027-01-01T00:00:00+00:00",
      hostNames: [`${HOSTILE_NAME}.example`],
      issuer: HOSTILE_NAME,
      subjectName: HOSTILE_NAME,
    }),
    siteRow({
      ...at,
      name: "hostile-site",
      bindings: [{ hostName: HOSTILE_NAME, thumbprint: HOSTILE_THUMBPRINTS[1] }],
    }),
  );
  return rows;
}

/** One vault row whose properties carry `bytes` of text (default 5 MB). */
export function hugeRow(subscriptionId: string, bytes = 5 * 1024 * 1024): GraphRow {
  const row = vaultRow({ subscriptionId, resourceGroup: "rg-hostile", name: "kv-huge" });
  return {
    ...row,
    type: GRAPH_TYPES.vault,
    properties: { ...row.properties, padding: "x".repeat(bytes) },
  };
}

/** `count` App Service certificates spread over `subscriptions` (for 50,000 rows, or a bench). */
export function manyCertificateRows(
  count: number,
  subscriptions: readonly string[],
  expiresAt = "2027-01-01T00:00:00+00:00",
): GraphRow[] {
  return Array.from({ length: count }, (_, i) =>
    appServiceCertificateRow({
      subscriptionId: subscriptions[i % subscriptions.length] ?? "",
      resourceGroup: "rg-many",
      name: `cert-${i}`,
      thumbprint: i.toString(16).padStart(8, "0").toUpperCase() + "0".repeat(32),
      expiresAt,
      hostNames: [`h${i}.many.example`],
    }),
  );
}
