import { WATCH_PREFIX } from "../inventory/watch.js";
import type { InventoryRecord } from "../ports/inventory.js";
import { INVENTORY_STATUSES } from "./judge.js";

/** One certificate's latest verification, as GET /api/verifications shows it. */
export interface VerificationView {
  /** Absent for a CERTSCHED_WATCH endpoint (not one of the service's certificates). */
  readonly certificateName?: string;
  readonly domain: string;
  readonly source: "tls" | "keyvault";
  readonly status: string;
  /** Present (true) only for a critically `expiring` certificate. */
  readonly critical?: true;
  /** ISO-8601 UTC; present whenever a certificate was read. */
  readonly servedNotAfter?: string;
  /** Whole days left when it was verified (`verifiedAt`). */
  readonly daysLeft?: number;
  readonly issuer?: string;
  readonly thumbprint?: string;
  readonly detail: string;
  /** ISO-8601 UTC: when this verification was made. */
  readonly verifiedAt: string;
  /** ISO-8601 UTC: since when the endpoint has failed to answer (for `unreachable`). */
  readonly unreachableSince?: string;
}

export interface VerificationsView {
  readonly results: VerificationView[];
  /** Results per status (statuses that occur), in the contract's order. */
  readonly counts: Record<string, number>;
  /** Certificates of the inventory no verification has looked at yet. */
  readonly notVerified: string[];
  /** Inventory rows that could not be read (named by their problems). */
  readonly invalid: readonly string[];
}

/** The inventory's last verifications, most urgent status first, then by name. */
export function verificationsView(read: {
  readonly items: readonly InventoryRecord[];
  readonly invalid: readonly string[];
}): VerificationsView {
  const results: VerificationView[] = [];
  const notVerified: string[] = [];
  for (const record of read.items) {
    const v = record.lastVerification;
    if (!v) {
      notVerified.push(record.certificateName);
      continue;
    }
    results.push({
      ...(record.certificateName.startsWith(WATCH_PREFIX)
        ? {}
        : { certificateName: record.certificateName }),
      domain: v.domain,
      source: v.source,
      status: v.status,
      ...(v.critical ? { critical: true as const } : {}),
      ...(v.servedNotAfter ? { servedNotAfter: v.servedNotAfter.toISOString() } : {}),
      ...(v.daysLeft === undefined ? {} : { daysLeft: v.daysLeft }),
      ...(v.issuer === undefined ? {} : { issuer: v.issuer }),
      ...(v.thumbprint === undefined ? {} : { thumbprint: v.thumbprint }),
      detail: v.detail,
      verifiedAt: v.at.toISOString(),
      ...(v.unreachableSince ? { unreachableSince: v.unreachableSince.toISOString() } : {}),
    });
  }
  const order: readonly string[] = INVENTORY_STATUSES;
  const rank = (status: string) => {
    const i = order.indexOf(status);
    return i < 0 ? order.length : i;
  };
  results.sort(
    (a, b) =>
      rank(a.status) - rank(b.status) ||
      (a.certificateName ?? a.domain).localeCompare(b.certificateName ?? b.domain),
  );
  const counts: Record<string, number> = {};
  for (const status of order) {
    const n = results.filter((r) => r.status === status).length;
    if (n > 0) counts[status] = n;
  }
  return { results, counts, notVerified, invalid: read.invalid };
}
