/**
 * The token bucket's promise over every window: deliveries in any interval
 * of length d are at most bucket + rate·d. For the window from the i-th to
 * the j-th delivery (sorted times t, seconds) the excess is
 *   (j - i + 1) - bucket - rate·(t_j - t_i) = f(j) - f(i) + 1 - bucket,  f(k) = k - rate·t_k,
 * so the worst window over all i <= j is one pass keeping the least f(i)
 * (the pairwise scan is quadratic, too slow for tens of thousands).
 * Answers the worst excess in deliveries (<= 0: kept), and the least slack
 * in seconds that would make every window pass (0 when none is needed).
 */
export function worstBucketExcess(
  timesMs: readonly number[],
  ratePerSecond: number,
  bucket: number,
): { excess: number; slackSeconds: number } {
  if (timesMs.length === 0) return { excess: -bucket, slackSeconds: 0 };
  const sorted = [...timesMs].sort((a, b) => a - b);
  let least = Infinity;
  let worst = -Infinity;
  for (let k = 0; k < sorted.length; k++) {
    const f = k - (ratePerSecond * sorted[k]!) / 1000;
    least = Math.min(least, f);
    worst = Math.max(worst, f - least + 1 - bucket);
  }
  return { excess: worst, slackSeconds: worst <= 0 ? 0 : worst / ratePerSecond };
}
