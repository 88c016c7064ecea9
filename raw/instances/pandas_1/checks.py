"""What a fix of pandas_1 must achieve (docs/checks.md): run in the notebook's kernel after its last cell.

The census file has a space after every comma, so the column is ' income' and its values ' <=50K'. A fix strips
the spaces from the headers and the values, so that the income target is encoded as 0/1 for every person and the
model is trained on it.
"""


def check_headers_stripped():
    """no column name starts with a space, and `income` is one of them"""
    assert not [c for c in df.columns if str(c) != str(c).strip()], list(df.columns)
    assert "income" in df.columns


def check_income_encoded():
    """`df['income']` is 0 or 1 for every person, both classes present"""
    assert df["income"].notna().all(), int(df["income"].isna().sum())
    assert set(df["income"].unique()) == {0, 1}, sorted(map(str, df["income"].unique()))


def check_categories_stripped():
    """category values carry no leading space (they are the labels the notebook groups and encodes by)"""
    for col in ["workclass", "education", "sex"]:
        values = df[col].dropna().astype(str)
        assert not values.str.startswith(" ").any(), col


def check_classifier_trained():
    """the classifier is fitted on every encoded feature and predicts each test row"""
    assert clf.n_features_in_ == X.shape[1], (clf.n_features_in_, X.shape)
    assert len(pred) == len(y_test)
