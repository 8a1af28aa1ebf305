import unittest

from invoicing.tax import vat_rate


class TaxTest(unittest.TestCase):
    def test_charges_a_consumer_the_sellers_rate(self):
        self.assertEqual(vat_rate("DE", "FR", False), 19)

    def test_refuses_an_unknown_country(self):
        with self.assertRaises(KeyError):
            vat_rate("DE", "US", False)
