/** Amounts of money in whole cents: integers, so sums never pick up floating-point dust. */
export type Cents = number;

/** A decimal amount (19.99) in cents (1999). */
export function cents(amount: number): Cents {
  return Math.round(amount * 100);
}

/** `percent` % of an amount, rounded half up to a whole cent. */
export function percentOf(amount: Cents, percent: number): Cents {
  return Math.round((amount * percent) / 100);
}

/** 1999 -> "19.99 EUR". */
export function formatCents(amount: Cents, currency = 'EUR'): string {
  const sign = amount < 0 ? '-' : '';
  const abs = Math.abs(amount);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')} ${currency}`;
}
