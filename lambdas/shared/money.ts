/**
 * Money as the platform keeps it: whole micro-dollars (USD), so sums stay exact under
 * DynamoDB's atomic ADD, and printed the way people read prices.
 */

/** Micro-dollars from dollars (a configured budget), rounded to the micro-dollar. */
export function microUsd(usd: number): number {
  return Math.round(usd * 1_000_000);
}

/**
 * Micro-dollars as people read money: cents from a dollar up, and for whole cents (`$12.34`,
 * `$0.50`); four decimals for smaller amounts (`$0.0123`), and `< $0.0001` for a cost that is
 * not zero but rounds to nothing.
 */
export function formatUsd(micro: number): string {
  if (micro > 0 && micro < 100) return '< $0.0001';
  const usd = micro / 1_000_000;
  const wholeCents = Math.round(micro) % 10_000 === 0;
  return usd >= 1 || wholeCents
    ? `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`
    : `$${usd.toFixed(4)}`;
}
