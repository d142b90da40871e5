/**
 * "2026-05-06 (5 days left)": the UTC calendar date of an ISO-8601 instant and the whole days
 * left (rounded down, as daysLeft is). Always UTC, so a certificate reads the same on every
 * operator's machine whatever its time zone.
 */
export function formatExpiry(isoUtc: string, daysLeft: number): string {
  const date = isoUtc.slice(0, 10);
  const days = (n: number) => `${n} day${n === 1 ? "" : "s"}`;
  if (daysLeft >= 0) return `${date} (${days(daysLeft)} left)`;
  // daysLeft -1 means it expired within the last 24 hours.
  const ago = -daysLeft - 1;
  return ago === 0 ? `${date} (expired)` : `${date} (expired ${days(ago)} ago)`;
}
