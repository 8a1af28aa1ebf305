"""Due dates: net days after the invoice date, or a number of business days."""

from datetime import date, timedelta


def due_date(invoice_date: date, net_days: int) -> date:
    """The date payment is due: `net_days` calendar days after the invoice date."""
    if net_days < 0:
        raise ValueError("net_days must not be negative")
    return invoice_date + timedelta(days=net_days)


def add_business_days(start: date, days: int) -> date:
    """The date `days` business days (Monday to Friday) after `start`."""
    current = start
    added = 0
    while added < days:
        current += timedelta(days=1)
        if current.weekday() >= 5:
            continue
        added += 1
    return current
