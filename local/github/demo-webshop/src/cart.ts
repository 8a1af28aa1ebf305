import { findProduct, type Product } from './catalog.ts';
import type { Cents } from './money.ts';

export interface CartLine {
  product: Product;
  quantity: number;
}

/** A shopping cart: one line per product, quantities of at least 1. */
export class Cart {
  private readonly items = new Map<string, CartLine>();

  add(productId: string, quantity = 1): this {
    if (!Number.isInteger(quantity) || quantity < 1)
      throw new RangeError('quantity must be a positive integer');
    const line = this.items.get(productId);
    if (line) line.quantity += quantity;
    else this.items.set(productId, { product: findProduct(productId), quantity });
    return this;
  }

  remove(productId: string): this {
    this.items.delete(productId);
    return this;
  }

  lines(): CartLine[] {
    return [...this.items.values()];
  }

  isEmpty(): boolean {
    return this.items.size === 0;
  }

  /** The sum of the lines' net prices. */
  subtotal(): Cents {
    return this.lines().reduce((sum, line) => sum + line.product.priceCents * line.quantity, 0);
  }
}
