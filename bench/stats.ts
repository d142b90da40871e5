/** Small statistics for the benchmark: every figure in docs/performance.md goes through these. */

/** The value at quantile `q` (0..1) of `values`, nearest-rank; NaN when there are none. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  if (q < 0 || q > 1) throw new RangeError(`quantile must be within 0..1, got ${q}`);
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1] as number;
}

/** The median; for an even count, the mean of the two middle values. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

/** Milliseconds for a person: "0.42 ms", "38.1 ms", "12.6 s". */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "n/a";
  if (Math.abs(ms) >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (Math.abs(ms) >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (Math.abs(ms) >= 100) return `${ms.toFixed(0)} ms`;
  if (Math.abs(ms) >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

/** A ratio as "6.85x". */
export function formatRatio(ratio: number): string {
  return Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : "n/a";
}

/** Runs `measure` over `variants` round-robin, `rounds` times, so drift hits each variant alike. */
export async function interleaved<K extends string>(
  variants: readonly K[],
  rounds: number,
  measure: (variant: K, round: number) => Promise<number> | number,
): Promise<Record<K, number[]>> {
  const samples = Object.fromEntries(variants.map((v) => [v, [] as number[]])) as Record<
    K,
    number[]
  >;
  for (let round = 0; round < rounds; round++) {
    for (const variant of variants) samples[variant].push(await measure(variant, round));
  }
  return samples;
}
