import unittest

from invoicing.numbering import InvoiceNumbers


class NumberingTest(unittest.TestCase):
    def test_counts_up_within_a_year(self):
        numbers = InvoiceNumbers()
        self.assertEqual([numbers.next(2026), numbers.next(2026)], ["INV-2026-0001", "INV-2026-0002"])
