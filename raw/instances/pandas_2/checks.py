"""What a fix of pandas_2 must achieve (docs/checks.md): run in the notebook's kernel after its last cell.

The sales dates are datetimes but the oil dates strings, so the merge on `date` is refused. A fix makes both
datetimes, so that every sales row gets the oil price of its day (filled over the days without one) and the date
features and the model follow from it.
"""


def check_oil_dates_are_dates():
    """both tables key the merge by datetime dates"""
    assert oil["date"].dtype.kind == "M", str(oil["date"].dtype)
    assert df["date"].dtype.kind == "M", str(df["date"].dtype)


def check_every_row_priced():
    """every sales row is kept and has an oil price"""
    assert len(df) == len(train), (len(df), len(train))
    assert df["dcoilwtico"].notna().all()


def check_prices_matched_by_date():
    """a sales row's oil price is that day's price in oil.csv wherever oil.csv has one"""
    import numpy as np

    known = oil.dropna(subset=["dcoilwtico"]).set_index("date")["dcoilwtico"]
    rows = df[df["date"].isin(known.index)]
    assert len(rows) > 0 and df["dcoilwtico"].nunique() > 1
    assert np.allclose(rows["dcoilwtico"].to_numpy(), known.loc[rows["date"]].to_numpy())


def check_model_trained():
    """the random forest is fitted on the seven features and predicts each validation row"""
    assert rf.n_features_in_ == len(features) == 7
    assert len(pred) == len(va)
