"""Amounts in whole cents, so sums never pick up floating-point dust."""

from decimal import ROUND_HALF_UP, Decimal


def percent_of(amount_cents: int, percent: int) -> int:
    """`percent` % of an amount, rounded half up to a whole cent."""
    exact = Decimal(amount_cents) * Decimal(percent) / Decimal(100)
    return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def format_cents(amount_cents: int, currency: str = "EUR") -> str:
    """1999 -> '19.99 EUR'."""
    sign = "-" if amount_cents < 0 else ""
    whole, cents = divmod(abs(amount_cents), 100)
    return f"{sign}{whole}.{cents:02d} {currency}"
