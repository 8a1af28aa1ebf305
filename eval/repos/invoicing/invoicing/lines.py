"""Invoice lines: quantity times unit price, less a line discount in percent."""

from dataclasses import dataclass

from .money import percent_of


@dataclass(frozen=True)
class Line:
    description: str
    quantity: int
    unit_price_cents: int
    discount_percent: int = 0

    def __post_init__(self) -> None:
        if self.quantity < 1:
            raise ValueError("quantity must be at least 1")
        if not 0 <= self.discount_percent <= 100:
            raise ValueError("discount_percent must be between 0 and 100")


def line_net(line: Line) -> int:
    """The line's net amount in cents: gross less its discount (rounded half up)."""
    gross = line.quantity * line.unit_price_cents
    return gross - percent_of(gross, line.discount_percent)


def invoice_net(lines: list[Line]) -> int:
    """The sum of the lines' net amounts."""
    return sum(line_net(line) for line in lines)
