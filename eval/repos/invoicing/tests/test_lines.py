import unittest

from invoicing.lines import Line, invoice_net, line_net
from invoicing.money import format_cents


class LinesTest(unittest.TestCase):
    def test_multiplies_quantity_by_unit_price(self):
        self.assertEqual(line_net(Line("Widget", 3, 1250)), 3750)

    def test_sums_the_lines(self):
        self.assertEqual(invoice_net([Line("A", 1, 1000), Line("B", 2, 250)]), 1500)

    def test_refuses_a_quantity_below_one(self):
        with self.assertRaises(ValueError):
            Line("A", 0, 100)

    def test_formats_cents(self):
        self.assertEqual(format_cents(1999), "19.99 EUR")
