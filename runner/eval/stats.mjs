// Statistics for the evaluation, the runner and the benchmarks: medians, success rates with their
// confidence intervals, and the paired comparison of two runs of the same suite.

/** The median of `values`; null when there are none. */
export const median = (values) => {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** The 95% Wilson score interval of `successes` out of `n` (sound for small n and rates near 0 or 1). */
export function wilson(successes, n) {
  if (n === 0) return [0, 0];
  const z = 1.959964;
  const p = successes / n;
  const denominator = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denominator;
  const spread = (z / denominator) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [Math.max(0, centre - spread), Math.min(1, centre + spread)];
}

/** A small deterministic generator (mulberry32), so that a comparison prints the same each time. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The difference B − A of two success rates over the same tasks, paired by task (each task's own
 * rate in A and in B): the mean difference, its 95% bootstrap interval over tasks, and the
 * two-sided bootstrap p-value of "no difference". `pairs` is [[rateA, rateB], ...] per task.
 */
export function pairedDifference(pairs, resamples = 10_000) {
  const n = pairs.length;
  if (!n) return { difference: 0, ci: [0, 0], p: 1 };
  const differences = pairs.map(([a, b]) => b - a);
  const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const observed = mean(differences);
  const next = random(0x5eed);
  const means = [];
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += differences[Math.floor(next() * n)];
    means.push(sum / n);
  }
  means.sort((a, b) => a - b);
  const ci = [means[Math.floor(0.025 * resamples)], means[Math.ceil(0.975 * resamples) - 1]];
  // Under "no difference" the resampled means centre on 0: how often one lies as far out as observed.
  const centred = means.map((m) => m - observed);
  const extreme = centred.filter((m) => Math.abs(m) >= Math.abs(observed) - 1e-12).length;
  const p = observed === 0 ? 1 : Math.min(1, extreme / resamples);
  return { difference: observed, ci, p };
}
