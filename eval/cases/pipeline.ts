import type { CaseBase } from '../types.ts';
import type { BugCase } from './bugs.ts';
import { BUG_CASES } from './bugs.ts';

/**
 * Issue pipeline cases: an issue labelled for the agents on a repository with a bug planted (the
 * bug cases' plants and hidden tests, reused), taken by the pipeline to a pull request. Graded
 * by the same hidden-test rule as a bug fix; the reviewer's rejections, when it made any, by
 * the judge against `reviewRubric`.
 */

export interface PipelineCase extends CaseBase {
  workflow: 'issue_pipeline';
  /** The bug case whose repository, plant and hidden tests this issue is about. */
  bug: BugCase;
  issue: { title: string; body: string };
  truth: { reviewRubric: string[] };
}

const bugOf = (id: string): BugCase => {
  const found = BUG_CASES.find((b) => b.id === id);
  if (!found) throw new Error(`no bug case ${id}`);
  return found;
};

const pipeline = (id: string, bugId: string, title: string, body: string): PipelineCase => {
  const bug = bugOf(bugId);
  return {
    id,
    workflow: 'issue_pipeline',
    title,
    bug,
    issue: { title, body },
    truth: {
      reviewRubric: [
        `Every issue the reviewer raised is a real problem of the change for this bug (${bug.title}), not a style preference or an invented one.`,
      ],
    },
  };
};

export const PIPELINE_CASES: PipelineCase[] = [
  pipeline(
    'pipeline/webshop-vat-before-discount',
    'bug/webshop-vat-before-discount',
    'Checkout totals are too high with a discount code',
    'With a discount code the checkout charges VAT on the subtotal before the discount. 2 T-shirts, SAVE10, DE: expected 47.77, got 48.53.',
  ),
  pipeline(
    'pipeline/webshop-free-shipping-threshold',
    'bug/webshop-free-shipping-threshold',
    'Free shipping not applied at exactly 50.00',
    'Orders of exactly 50.00 EUR after discounts still pay 4.95 shipping; the shop says free from 50.',
  ),
  pipeline(
    'pipeline/webshop-code-case',
    'bug/webshop-code-case',
    'Discount codes are case sensitive',
    'Customers typing save10 get "unknown discount code". Codes should be accepted in any case.',
  ),
  pipeline(
    'pipeline/invoicing-reverse-charge',
    'bug/invoicing-reverse-charge',
    'Reverse charge applied to domestic business buyers',
    'vat_rate("DE", "DE", True) returns 0; it should only be 0 for a business buyer in another EU country.',
  ),
  pipeline(
    'pipeline/invoicing-sequence-per-year',
    'bug/invoicing-sequence-per-year',
    'Invoice numbers must restart at 0001 each year',
    'InvoiceNumbers.next(2027) continues the 2026 sequence. Each year has its own sequence.',
  ),
  pipeline(
    'pipeline/invoicing-business-days',
    'bug/invoicing-business-days',
    'add_business_days counts Saturdays',
    'add_business_days(Thursday 2026-03-05, 3) gives Monday 9th; Saturday must not count, the answer is Tuesday 10th.',
  ),
];
