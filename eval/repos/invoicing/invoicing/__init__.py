"""Invoice lines, VAT, due dates and invoice numbers."""
