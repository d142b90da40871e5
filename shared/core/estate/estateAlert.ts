import type { EstateEntry } from "./report.js";

/** The certificates of one account that entered the unmanaged-and-expiring set in one run. */
export interface EstateAlert {
  /** Unset: the notifier of the account fills it in. */
  readonly account?: string | undefined;
  readonly entries: readonly EstateEntry[];
  readonly expiringDays: number;
  readonly at: Date;
}
