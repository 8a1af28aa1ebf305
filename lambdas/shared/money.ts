/**
 * Money as the platform keeps it: whole micro-dollars (USD), so sums stay exact under
 * DynamoDB's atomic ADD, and printed the way people read prices.
 */

/** Micro-dollars from dollars (a configured budget), rounded to the micro-dollar. */
export function microUsd(usd: number): number {
  return Math.round(usd * 1_000_000);
}

/**
 * Micro-dollars as people read money: cents from a dollar up (`$12.34`), four decimals below
 * (`$0.0123`), and `< $0.0001` for a cost that is not zero but rounds to it.
 */
export function formatUsd(micro: number): string {
  if (micro > 0 && micro < 100) return '< $0.0001';
  const usd = micro / 1_000_000;
  return usd >= 1
    ? `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`
    : `$${usd.toFixed(4)}`;
}
