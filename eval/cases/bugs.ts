import type { CaseBase } from '../types.ts';

/**
 * Bug cases: a bug planted in one of the demo repositories (`demo/webshop`, TypeScript; and
 * `demo/invoicing`, Python), the report a user posts, and the truth: where the bug is (the
 * findings must cite that file within a few lines of the planted line, found by `near`) and
 * hidden tests, which no agent sees: they fail on the planted bug and must pass on the pull
 * request's branch, with the repository's own tests still passing (judged by the base's checks).
 */

export type BugRepo = 'webshop' | 'invoicing';

export interface BugCase extends CaseBase {
  workflow: 'bug_investigation';
  repo: BugRepo;
  /** Edits of the repository's clean state that plant the bug (each `find` must occur once). */
  plant: { file: string; find: string; replace: string }[];
  report: string;
  /** What the reporter answers if asked. */
  details: string;
  truth: { file: string; near: string; hiddenTests: Record<string, string> };
}

const ts = (body: string, imports: string) =>
  `import assert from 'node:assert/strict';\nimport { describe, it } from 'node:test';\n${imports}\n\n${body}\n`;
const py = (body: string, imports: string) => `import unittest\n${imports}\n\n\n${body}\n`;

export const WEBSHOP_HIDDEN = 'test/hidden.test.ts';
export const INVOICING_HIDDEN = 'tests/test_hidden.py';

const bug = (c: Omit<BugCase, 'workflow'>): BugCase => ({ workflow: 'bug_investigation', ...c });

export const BUG_CASES: BugCase[] = [
  bug({
    id: 'bug/webshop-vat-before-discount',
    title: 'VAT charged on the subtotal before the discount',
    repo: 'webshop',
    plant: [
      {
        file: 'src/checkout.ts',
        find: 'const vat = vatFor(net, options.region);',
        replace: 'const vat = vatFor(subtotal, options.region);',
      },
    ],
    report:
      'Checkout totals are too high when I use a discount code: the VAT looks wrong. 2 T-shirts, SAVE10, region DE.',
    details: 'Total shown was 48.53 EUR, I expected 47.77 EUR.',
    truth: {
      file: 'src/checkout.ts',
      near: 'const vat = vatFor(',
      hiddenTests: {
        [WEBSHOP_HIDDEN]: ts(
          `describe('hidden: VAT after discount', () => {
  it('charges VAT on the discounted net amount', () => {
    const t = checkoutTotals(new Cart().add('hoodie'), { region: 'FR', discountCode: 'SAVE10' });
    assert.equal(t.vat, 810);
  });
});`,
          "import { Cart } from '../src/cart.ts';\nimport { checkoutTotals } from '../src/checkout.ts';",
        ),
      },
    },
  }),
  bug({
    id: 'bug/webshop-discount-minimum',
    title: 'A discount is refused at exactly its minimum subtotal',
    repo: 'webshop',
    plant: [
      {
        file: 'src/discounts.ts',
        find: 'if (subtotal < discount.minSubtotalCents) return 0;',
        replace: 'if (subtotal <= discount.minSubtotalCents) return 0;',
      },
    ],
    report: 'FIVEOFF says minimum 25.00 EUR but with exactly 25.00 in my cart (2 mugs) it takes nothing off.',
    details: 'Two coffee mugs, 12.50 each, code FIVEOFF, region DE.',
    truth: {
      file: 'src/discounts.ts',
      near: 'discount.minSubtotalCents) return 0',
      hiddenTests: {
        [WEBSHOP_HIDDEN]: ts(
          `describe('hidden: discount minimum', () => {
  it('applies a discount at exactly its minimum', () => {
    assert.equal(discountFor(2500, findDiscount('FIVEOFF')!), 500);
    assert.equal(discountFor(2000, findDiscount('SAVE10')!), 200);
  });
});`,
          "import { discountFor, findDiscount } from '../src/discounts.ts';",
        ),
      },
    },
  }),
  bug({
    id: 'bug/webshop-code-case',
    title: 'Discount codes typed in lower case are unknown',
    repo: 'webshop',
    plant: [
      {
        file: 'src/discounts.ts',
        find: 'const wanted = code.trim().toUpperCase();',
        replace: 'const wanted = code.trim();',
      },
    ],
    report: 'Typing "save10" at checkout says unknown discount code, SAVE10 works.',
    details: 'Lower case save10, region NL, a hoodie in the cart.',
    truth: {
      file: 'src/discounts.ts',
      near: 'const wanted = code.trim()',
      hiddenTests: {
        [WEBSHOP_HIDDEN]: ts(
          `describe('hidden: code case', () => {
  it('finds a code whatever its case and spaces', () => {
    assert.equal(findDiscount(' save10 ')?.code, 'SAVE10');
    assert.equal(findDiscount('FiveOff')?.code, 'FIVEOFF');
  });
});`,
          "import { findDiscount } from '../src/discounts.ts';",
        ),
      },
    },
  }),
  bug({
    id: 'bug/webshop-free-shipping-threshold',
    title: 'Shipping charged at exactly the free-shipping amount',
    repo: 'webshop',
    plant: [
      {
        file: 'src/checkout.ts',
        find: 'net >= FREE_SHIPPING_FROM ? 0 : SHIPPING',
        replace: 'net > FREE_SHIPPING_FROM ? 0 : SHIPPING',
      },
    ],
    report: 'Free shipping is advertised from 50 EUR but an order of exactly 50.00 still paid 4.95 shipping.',
    details: 'Cart: 4 mugs (50.00), region DE, no code.',
    truth: {
      file: 'src/checkout.ts',
      near: 'FREE_SHIPPING_FROM ? 0 : SHIPPING',
      hiddenTests: {
        [WEBSHOP_HIDDEN]: ts(
          `describe('hidden: free shipping threshold', () => {
  it('ships for free at exactly 50.00', () => {
    assert.equal(checkoutTotals(new Cart().add('mug', 4), { region: 'DE' }).shipping, 0);
  });
});`,
          "import { Cart } from '../src/cart.ts';\nimport { checkoutTotals } from '../src/checkout.ts';",
        ),
      },
    },
  }),
  bug({
    id: 'bug/webshop-negative-format',
    title: 'Refunds are formatted wrongly',
    repo: 'webshop',
    plant: [{ file: 'src/money.ts', find: 'const abs = Math.abs(amount);', replace: 'const abs = amount;' }],
    report: 'Refund emails show amounts like "--13.-50 EUR" instead of "-12.50 EUR".',
    details: 'A refund of one coffee mug (12.50).',
    truth: {
      file: 'src/money.ts',
      near: 'const abs = ',
      hiddenTests: {
        [WEBSHOP_HIDDEN]: ts(
          `describe('hidden: negative amounts', () => {
  it('formats a negative amount with one sign', () => {
    assert.equal(formatCents(-1250), '-12.50 EUR');
    assert.equal(formatCents(-5), '-0.05 EUR');
  });
});`,
          "import { formatCents } from '../src/money.ts';",
        ),
      },
    },
  }),
  bug({
    id: 'bug/webshop-cart-merge',
    title: 'Adding a product again replaces its quantity',
    repo: 'webshop',
    plant: [
      {
        file: 'src/cart.ts',
        find: 'if (line) line.quantity += quantity;',
        replace: 'if (line) line.quantity = quantity;',
      },
    ],
    report: 'I add a mug, then add 2 more mugs, and the cart says 2 mugs instead of 3.',
    details: 'Web shop, product page "add to cart" twice.',
    truth: {
      file: 'src/cart.ts',
      near: 'if (line) line.quantity',
      hiddenTests: {
        [WEBSHOP_HIDDEN]: ts(
          `describe('hidden: merging lines', () => {
  it('adds quantities of the same product', () => {
    assert.equal(new Cart().add('notebook').add('notebook', 2).lines()[0]?.quantity, 3);
  });
});`,
          "import { Cart } from '../src/cart.ts';",
        ),
      },
    },
  }),
  bug({
    id: 'bug/webshop-rounding',
    title: 'VAT is rounded down instead of half up',
    repo: 'webshop',
    plant: [
      {
        file: 'src/money.ts',
        find: 'return Math.round((amount * percent) / 100);',
        replace: 'return Math.floor((amount * percent) / 100);',
      },
    ],
    report: 'Our accountant says VAT on some orders is one cent short, e.g. one notebook to DE.',
    details: 'One notebook (8.99), region DE: VAT shown 1.70, should be 1.71.',
    truth: {
      file: 'src/money.ts',
      near: 'return Math.floor((amount * percent) / 100);',
      hiddenTests: {
        [WEBSHOP_HIDDEN]: ts(
          `describe('hidden: rounding', () => {
  it('rounds half up to a whole cent', () => {
    assert.equal(percentOf(899, 19), 171);
    assert.equal(percentOf(350, 21), 74);
  });
});`,
          "import { percentOf } from '../src/money.ts';",
        ),
      },
    },
  }),
  bug({
    id: 'bug/invoicing-net-days',
    title: 'Due dates are a day early',
    repo: 'invoicing',
    plant: [
      {
        file: 'invoicing/due.py',
        find: 'return invoice_date + timedelta(days=net_days)',
        replace: 'return invoice_date + timedelta(days=net_days - 1)',
      },
    ],
    report:
      'Invoices dated 1 March with net 30 say due 30 March; customers complain we chase them a day early.',
    details: 'Any invoice, e.g. dated 2026-03-01 net 30.',
    truth: {
      file: 'invoicing/due.py',
      near: 'return invoice_date + timedelta(',
      hiddenTests: {
        [INVOICING_HIDDEN]: py(
          `class HiddenDueTest(unittest.TestCase):
    def test_net_days_are_calendar_days_after_the_invoice_date(self):
        self.assertEqual(due_date(date(2026, 3, 1), 30), date(2026, 3, 31))
        self.assertEqual(due_date(date(2026, 3, 1), 0), date(2026, 3, 1))`,
          'from datetime import date\n\nfrom invoicing.due import due_date',
        ),
      },
    },
  }),
  bug({
    id: 'bug/invoicing-reverse-charge',
    title: 'Reverse charge applied to domestic businesses',
    repo: 'invoicing',
    plant: [
      {
        file: 'invoicing/tax.py',
        find: 'if buyer_is_business and buyer_country != seller_country:',
        replace: 'if buyer_is_business and buyer_country == seller_country:',
      },
    ],
    report: 'A German business customer of ours got an invoice with 0% VAT, and a French one got 19%.',
    details: 'Seller DE; buyer DE business got 0%, buyer FR business got 19%.',
    truth: {
      file: 'invoicing/tax.py',
      near: 'if buyer_is_business and buyer_country',
      hiddenTests: {
        [INVOICING_HIDDEN]: py(
          `class HiddenTaxTest(unittest.TestCase):
    def test_reverse_charge_only_across_borders(self):
        self.assertEqual(vat_rate("DE", "DE", True), 19)
        self.assertEqual(vat_rate("DE", "FR", True), 0)`,
          'from invoicing.tax import vat_rate',
        ),
      },
    },
  }),
  bug({
    id: 'bug/invoicing-sequence-per-year',
    title: 'Invoice numbers do not restart in a new year',
    repo: 'invoicing',
    plant: [
      { file: 'invoicing/numbering.py', find: 'self._last: dict[int, int] = {}', replace: 'self._last = 0' },
      {
        file: 'invoicing/numbering.py',
        find: 'sequence = self._last.get(year, 0) + 1\n        self._last[year] = sequence',
        replace: 'sequence = self._last + 1\n        self._last = sequence',
      },
    ],
    report: 'The first invoice of 2027 got number INV-2027-0412 instead of INV-2027-0001.',
    details: 'It continues the 2026 sequence.',
    truth: {
      file: 'invoicing/numbering.py',
      near: 'sequence = self._last + 1',
      hiddenTests: {
        [INVOICING_HIDDEN]: py(
          `class HiddenNumberingTest(unittest.TestCase):
    def test_each_year_starts_at_one(self):
        numbers = InvoiceNumbers()
        numbers.next(2026)
        numbers.next(2026)
        self.assertEqual(numbers.next(2027), "INV-2027-0001")
        self.assertEqual(numbers.next(2026), "INV-2026-0003")`,
          'from invoicing.numbering import InvoiceNumbers',
        ),
      },
    },
  }),
  bug({
    id: 'bug/invoicing-discount-truncation',
    title: 'Line discounts lose a cent',
    repo: 'invoicing',
    plant: [
      {
        file: 'invoicing/lines.py',
        find: 'return gross - percent_of(gross, line.discount_percent)',
        replace: 'return gross - int(gross * line.discount_percent / 100)',
      },
    ],
    report: 'A line of 3 x 3.33 EUR with 15% discount comes to 8.50 on the invoice; by hand it is 8.49.',
    details: 'quantity 3, unit price 333 cents, discount 15%.',
    truth: {
      file: 'invoicing/lines.py',
      near: 'return gross - int(',
      hiddenTests: {
        [INVOICING_HIDDEN]: py(
          `class HiddenLinesTest(unittest.TestCase):
    def test_discount_is_rounded_half_up(self):
        self.assertEqual(line_net(Line("A", 3, 333, 15)), 849)
        self.assertEqual(line_net(Line("B", 1, 1000, 10)), 900)`,
          'from invoicing.lines import Line, line_net',
        ),
      },
    },
  }),
  bug({
    id: 'bug/invoicing-business-days',
    title: 'Saturdays count as business days',
    repo: 'invoicing',
    plant: [
      { file: 'invoicing/due.py', find: 'if current.weekday() >= 5:', replace: 'if current.weekday() > 5:' },
    ],
    report:
      'Payment reminders scheduled "3 business days" after Thursday go out on Monday instead of Tuesday.',
    details: 'Start Thursday 2026-03-05, 3 business days.',
    truth: {
      file: 'invoicing/due.py',
      near: 'if current.weekday()',
      hiddenTests: {
        [INVOICING_HIDDEN]: py(
          `class HiddenBusinessDaysTest(unittest.TestCase):
    def test_skips_saturday_and_sunday(self):
        self.assertEqual(add_business_days(date(2026, 3, 5), 3), date(2026, 3, 10))
        self.assertEqual(add_business_days(date(2026, 3, 6), 1), date(2026, 3, 9))`,
          'from datetime import date\n\nfrom invoicing.due import add_business_days',
        ),
      },
    },
  }),
];
