import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Cart } from '../src/cart.ts';
import { checkoutTotals, UnknownDiscountCodeError } from '../src/checkout.ts';

describe('checkout totals', () => {
  it('adds VAT of the region and shipping to the subtotal', () => {
    const totals = checkoutTotals(new Cart().add('mug', 2), { region: 'DE' });
    assert.deepEqual(totals, { subtotal: 2500, discount: 0, vat: 475, shipping: 495, total: 3470 });
  });

  it('ships for free from 50.00 on', () => {
    const totals = checkoutTotals(new Cart().add('hoodie').add('mug'), { region: 'NL' });
    assert.deepEqual(totals, { subtotal: 5750, discount: 0, vat: 1208, shipping: 0, total: 6958 });
  });

  it('charges VAT on the discounted amount, not on the subtotal before the discount', () => {
    const totals = checkoutTotals(new Cart().add('tshirt', 2), { region: 'DE', discountCode: 'SAVE10' });
    assert.deepEqual(totals, { subtotal: 3998, discount: 400, vat: 684, shipping: 495, total: 4777 });
  });

  it('refuses an unknown discount code and an empty cart', () => {
    assert.throws(
      () => checkoutTotals(new Cart().add('mug'), { region: 'FR', discountCode: 'NOPE' }),
      UnknownDiscountCodeError,
    );
    assert.throws(() => checkoutTotals(new Cart(), { region: 'FR' }), RangeError);
  });
});
