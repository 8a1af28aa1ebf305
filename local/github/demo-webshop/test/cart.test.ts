import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Cart } from '../src/cart.ts';
import { UnknownProductError } from '../src/catalog.ts';

describe('cart', () => {
  it('adds up the net prices of its lines', () => {
    const cart = new Cart().add('mug', 2).add('stickers');
    assert.equal(cart.subtotal(), 2 * 1250 + 350);
  });

  it('merges the same product into one line', () => {
    const cart = new Cart().add('mug').add('mug', 3);
    assert.deepEqual(
      cart.lines().map((l) => [l.product.id, l.quantity]),
      [['mug', 4]],
    );
  });

  it('removes a product', () => {
    const cart = new Cart().add('mug').add('hoodie').remove('mug');
    assert.equal(cart.subtotal(), 4500);
  });

  it('refuses an unknown product and a quantity below one', () => {
    assert.throws(() => new Cart().add('spaceship'), UnknownProductError);
    assert.throws(() => new Cart().add('mug', 0), RangeError);
  });
});
