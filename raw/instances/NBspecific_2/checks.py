"""What a fix of NBspecific_2 must achieve (docs/checks.md): run in the notebook's kernel after its last cell.

In the saved session the clean-up cell dropped Name before the titles were extracted from it. A fix extracts the
titles first (the cells in file order), so that every passenger has a title, kept as a column or as its indicator
columns once encoded.
"""


def check_titles_extracted():
    """every passenger has a title extracted from the names (a Title column, or its indicator columns)"""
    columns = [str(c) for c in df.columns]
    assert "Title" in columns or any(c.startswith("Title_") for c in columns), columns
    if "Title" in columns:
        assert df["Title"].notna().all(), int(df["Title"].isna().sum())
        assert {"Mr", "Mrs", "Miss"} <= set(df["Title"]) | {"Rare"}, sorted(set(df["Title"]))


def check_passengers_kept():
    """no passenger was dropped on the way (the 300 rows of the training file remain)"""
    assert len(df) == 300, len(df)
