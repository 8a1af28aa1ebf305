import type { Cents } from './money.ts';

export interface Product {
  id: string;
  name: string;
  /** Net price, before VAT. */
  priceCents: Cents;
}

export class UnknownProductError extends Error {
  override readonly name = 'UnknownProductError';
  constructor(readonly productId: string) {
    super(`no product ${productId} in the catalog`);
  }
}

export const CATALOG: readonly Product[] = [
  { id: 'mug', name: 'Coffee mug', priceCents: 1250 },
  { id: 'tshirt', name: 'T-shirt', priceCents: 1999 },
  { id: 'hoodie', name: 'Hoodie', priceCents: 4500 },
  { id: 'stickers', name: 'Sticker pack', priceCents: 350 },
  { id: 'notebook', name: 'Notebook', priceCents: 899 },
];

export function findProduct(id: string): Product {
  const product = CATALOG.find((p) => p.id === id);
  if (!product) throw new UnknownProductError(id);
  return product;
}
