"""What a fix of pandas_3 must achieve (docs/checks.md): run in the notebook's kernel after its last cell.

The cast of `units` to int fails on the few order lines without units. A fix drops or imputes those lines, so that
units are whole numbers everywhere and every line gets a revenue; the monthly, regional and per-store summaries
that follow are computed from it.
"""


def check_units_whole_numbers():
    """`df['units']` is an integer column with no missing values"""
    assert df["units"].dtype.kind in "iu", str(df["units"].dtype)
    assert df["units"].notna().all()


def check_nearly_every_line_kept():
    """only the handful of lines without units were dropped or imputed: at least 99% of the 2,500 order lines remain"""
    assert 0.99 * 2500 <= len(df) <= 2500, len(df)


def check_revenue_for_every_line():
    """every order line has a revenue: units × unit price × (1 − discount, missing discounts as 0)"""
    import numpy as np

    expected = df["units"] * df["unit_price"] * (1 - df["discount"].fillna(0))
    assert df["revenue"].notna().all()
    assert np.allclose(df["revenue"], expected), "revenue is not units × price × (1 − discount)"


def check_summaries_from_revenue():
    """the monthly and per-store revenue summaries add up to the total revenue"""
    import numpy as np

    total = df["revenue"].sum()
    assert np.isclose(monthly.sum(), total), (monthly.sum(), total)
    assert len(top) == 10 and (top.values <= total).all()
