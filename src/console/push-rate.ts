/** A push queue's rate for people: `5/s`, `0.5/s`, `0 (nothing is dispatched)`. */
export function formatPushRate(perSecond: number): string {
  return perSecond === 0 ? '0 (nothing is dispatched)' : `${Number(perSecond.toPrecision(6))}/s`;
}

/** Tokens for people: whole tokens, as a claim spends them; `full` before the first claim. */
export function formatTokens(tokens: number | null, bucketSize: number): string {
  return tokens === null ? `${bucketSize} (full)` : String(Math.floor(tokens));
}
