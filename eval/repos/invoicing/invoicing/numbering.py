"""Invoice numbers: INV-<year>-<sequence>, the sequence starting at 1 every year."""


class InvoiceNumbers:
    def __init__(self) -> None:
        self._last: dict[int, int] = {}

    def next(self, year: int) -> str:
        """The next number of `year`, e.g. INV-2026-0007."""
        sequence = self._last.get(year, 0) + 1
        self._last[year] = sequence
        return f"INV-{year}-{sequence:04d}"
