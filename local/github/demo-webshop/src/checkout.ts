import type { Cart } from './cart.ts';
import { discountFor, findDiscount } from './discounts.ts';
import type { Cents } from './money.ts';
import { type Region, vatFor } from './tax.ts';

/** Shipping is free from this amount (after discounts) on. */
export const FREE_SHIPPING_FROM: Cents = 5000;
export const SHIPPING: Cents = 495;

export interface CheckoutOptions {
  region: Region;
  discountCode?: string;
}

export interface Totals {
  subtotal: Cents;
  discount: Cents;
  vat: Cents;
  shipping: Cents;
  total: Cents;
}

export class UnknownDiscountCodeError extends Error {
  override readonly name = 'UnknownDiscountCodeError';
  constructor(readonly code: string) {
    super(`unknown discount code ${code}`);
  }
}

/**
 * The totals a customer pays at checkout: the cart's net subtotal, less the discount, plus VAT
 * on the discounted amount, plus shipping (free from FREE_SHIPPING_FROM).
 */
export function checkoutTotals(cart: Cart, options: CheckoutOptions): Totals {
  if (cart.isEmpty()) throw new RangeError('the cart is empty');
  const subtotal = cart.subtotal();
  let discount = 0;
  if (options.discountCode !== undefined) {
    const found = findDiscount(options.discountCode);
    if (!found) throw new UnknownDiscountCodeError(options.discountCode);
    discount = discountFor(subtotal, found);
  }
  const net = subtotal - discount;
  const vat = vatFor(subtotal, options.region);
  const shipping = net >= FREE_SHIPPING_FROM ? 0 : SHIPPING;
  return { subtotal, discount, vat, shipping, total: net + vat + shipping };
}
