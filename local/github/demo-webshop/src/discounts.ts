import { type Cents, percentOf } from './money.ts';

export type Discount =
  | { code: string; kind: 'percent'; percent: number; minSubtotalCents: Cents }
  | { code: string; kind: 'fixed'; amountCents: Cents; minSubtotalCents: Cents };

export const DISCOUNTS: readonly Discount[] = [
  { code: 'SAVE10', kind: 'percent', percent: 10, minSubtotalCents: 2000 },
  { code: 'FIVEOFF', kind: 'fixed', amountCents: 500, minSubtotalCents: 2500 },
];

/** A discount by its code, ignoring case and surrounding spaces. */
export function findDiscount(code: string): Discount | undefined {
  const wanted = code.trim().toUpperCase();
  return DISCOUNTS.find((d) => d.code === wanted);
}

/** What a discount takes off a subtotal: nothing below its minimum, never more than the subtotal. */
export function discountFor(subtotal: Cents, discount: Discount): Cents {
  if (subtotal < discount.minSubtotalCents) return 0;
  const amount = discount.kind === 'percent' ? percentOf(subtotal, discount.percent) : discount.amountCents;
  return Math.min(amount, subtotal);
}
