import type { InventoryVerification } from "../../core/verification/inventoryResult.js";
import { INVENTORY_STATUSES } from "../../core/verification/judge.js";
import type { VerificationsView } from "../../core/verification/views.js";
import type { AccountPart } from "../acrossAccounts.js";

/**
 * The verification answers over accounts: every result and change carries its
 * `account`; counts are summed; each account has its own line in `accounts`. With several
 * accounts an invalid row or a problem line starts with `account NAME: `, as names may repeat.
 */

const order: readonly string[] = INVENTORY_STATUSES;
const rank = (status: string) => {
  const i = order.indexOf(status);
  return i < 0 ? order.length : i;
};
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function summed(all: readonly Readonly<Record<string, number>>[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const status of order) {
    const n = all.reduce((total, c) => total + (c[status] ?? 0), 0);
    if (n > 0) counts[status] = n;
  }
  return counts;
}

function named(parts: readonly AccountPart<unknown>[]) {
  const several = parts.length > 1;
  return (account: string, line: string) => (several ? `account ${account}: ${line}` : line);
}

/** GET /api/verifications over accounts: most urgent status first, then name, then account. */
export function verificationsAcross(parts: readonly AccountPart<VerificationsView>[]) {
  const line = named(parts);
  const results = parts
    .flatMap((p) => p.value.results.map((r) => ({ account: p.account, ...r })))
    .sort(
      (a, b) =>
        rank(a.status) - rank(b.status) ||
        cmp(a.certificateName ?? a.domain, b.certificateName ?? b.domain) ||
        cmp(a.account, b.account),
    );
  return {
    results,
    counts: summed(parts.map((p) => p.value.counts)),
    notVerified: parts.flatMap((p) => p.value.notVerified),
    invalid: parts.flatMap((p) => p.value.invalid.map((i) => line(p.account, i))),
    accounts: parts.map((p) => ({
      name: p.account,
      results: p.value.results.length,
      counts: p.value.counts,
      notVerified: p.value.notVerified,
    })),
  };
}

/** POST /api/verifications over accounts: `failed` when any account's run failed. */
export function verificationRunAcross(parts: readonly AccountPart<InventoryVerification>[]) {
  const line = named(parts);
  const at = parts.map((p) => p.value.at).sort((a, b) => a.getTime() - b.getTime())[0];
  return {
    ...(at ? { at } : {}),
    results: parts.flatMap((p) => p.value.results.map((r) => ({ account: p.account, ...r }))),
    counts: summed(parts.map((p) => p.value.counts)),
    failed: parts.some((p) => p.value.failed),
    problems: parts.flatMap((p) => p.value.problems.map((x) => line(p.account, x))),
    changes: parts.flatMap((p) => p.value.changes.map((c) => ({ account: p.account, ...c }))),
    accounts: parts.map((p) => ({
      name: p.account,
      failed: p.value.failed,
      counts: p.value.counts,
      problems: p.value.problems,
    })),
  };
}
