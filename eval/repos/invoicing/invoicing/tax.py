"""VAT by the seller's and the buyer's country, with the EU reverse charge for businesses."""

VAT_RATES = {"DE": 19, "FR": 20, "NL": 21, "AT": 20}


def vat_rate(seller_country: str, buyer_country: str, buyer_is_business: bool) -> int:
    """The VAT rate in percent to charge.

    A business buyer in another EU country pays no VAT here (reverse charge: it accounts for it
    itself); everyone else pays the seller's country's rate.
    """
    if seller_country not in VAT_RATES or buyer_country not in VAT_RATES:
        raise KeyError(f"no VAT rate for {seller_country} or {buyer_country}")
    if buyer_is_business and buyer_country != seller_country:
        return 0
    return VAT_RATES[seller_country]
