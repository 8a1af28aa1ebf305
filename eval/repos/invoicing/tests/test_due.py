import unittest
from datetime import date

from invoicing.due import due_date


class DueTest(unittest.TestCase):
    def test_refuses_negative_days(self):
        with self.assertRaises(ValueError):
            due_date(date(2026, 3, 1), -1)
