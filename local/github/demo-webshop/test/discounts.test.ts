import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Discount, discountFor, findDiscount } from '../src/discounts.ts';
import { formatCents, percentOf } from '../src/money.ts';

const save10 = findDiscount('SAVE10') as Discount;
const fiveOff = findDiscount('FIVEOFF') as Discount;

describe('discounts', () => {
  it('finds a code whatever its case', () => {
    assert.equal(findDiscount(' save10 ')?.code, 'SAVE10');
    assert.equal(findDiscount('FREESTUFF'), undefined);
  });

  it('takes a percentage off, rounded half up to the cent', () => {
    assert.equal(discountFor(3998, save10), 400);
    assert.equal(percentOf(2005, 10), 201);
  });

  it('gives nothing below the minimum subtotal', () => {
    assert.equal(discountFor(1999, save10), 0);
    assert.equal(discountFor(2499, fiveOff), 0);
  });

  it('takes a fixed amount off', () => {
    assert.equal(discountFor(2500, fiveOff), 500);
  });

  it('formats cents as a decimal amount', () => {
    assert.equal(formatCents(4777), '47.77 EUR');
    assert.equal(formatCents(-5), '-0.05 EUR');
  });
});
