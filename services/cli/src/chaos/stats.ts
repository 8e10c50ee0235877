/** The median of `values` (undefined when empty). */
export function median(values: readonly number[]): number | undefined {
  return percentile(values, 50);
}

/** The nearest-rank `p`th percentile of `values` (undefined when empty). */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}
