import { type Cents, percentOf } from './money.ts';

/** VAT rates in percent by shipping region. */
export const VAT_RATES = { DE: 19, FR: 20, NL: 21 } as const;

export type Region = keyof typeof VAT_RATES;

export function isRegion(value: string): value is Region {
  return Object.hasOwn(VAT_RATES, value);
}

/** VAT on a net amount, rounded half up to a whole cent. */
export function vatFor(net: Cents, region: Region): Cents {
  return percentOf(net, VAT_RATES[region]);
}
