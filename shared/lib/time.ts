/** Time constants: one definition each, in milliseconds. */
export const SECOND_MS = 1_000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

const UNIT_MS = { d: DAY_MS, h: HOUR_MS, m: MINUTE_MS, s: SECOND_MS, ms: 1 } as const;

/**
 * Parses a duration written for people: `2h`, `90m`, `45s`, `1d`, `1h30m`, `250ms`, or
 * ISO-8601 such as `PT2H`. Returns milliseconds, or undefined when the text is not a duration.
 */
export function parseDuration(text: string): number | undefined {
  const value = text.trim();
  const iso = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(value);
  if (iso && value.length > 1 && !/T$/i.test(value)) {
    const [, d = "0", h = "0", m = "0", s = "0"] = iso;
    return (
      Number(d) * UNIT_MS.d + Number(h) * UNIT_MS.h + Number(m) * UNIT_MS.m + Number(s) * UNIT_MS.s
    );
  }
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|d|h|m|s)/gi)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== value) return undefined;
  let total = 0;
  for (const [, amount, unit] of parts) {
    total += Number(amount) * UNIT_MS[(unit ?? "").toLowerCase() as keyof typeof UNIT_MS];
  }
  return total;
}
