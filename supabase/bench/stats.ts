// Small statistics of the scale benchmark: medians and percentiles of latencies, and how figures print.

/** The p-th percentile (0–100) of `values`, nearest rank; NaN for none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

/** Milliseconds with the precision that means something at that size. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0);
}

export function perSecond(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return value < 10 ? value.toFixed(1) : value.toFixed(0);
}

/** a / b as "×1.8"; '–' when either is missing. */
export function ratio(a: number, b: number): string {
  if (!Number.isFinite(a) || !Number.isFinite(b) || b === 0) return '–';
  return `×${(a / b).toFixed(a / b < 10 ? 2 : 1)}`;
}

export function seconds(since: number): number {
  return (performance.now() - since) / 1000;
}
