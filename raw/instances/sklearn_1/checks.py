"""What a fix of sklearn_1 must achieve (docs/checks.md): run in the notebook's kernel after its last cell.

Series.fillna returns a new Series: called without assignment, it leaves the missing ages in place, and logistic
regression refuses NaN. A fix fills (or drops) the missing ages before the model sees them — in the data, or by an
imputer in the model's pipeline — so that the model is fitted on the eight features, Age among them.
"""


def check_ages_handled():
    """no missing age reaches the classifier: the training data have none, or the model imputes them"""
    if X_train["Age"].isna().any():
        steps = [type(s).__module__ for _, s in getattr(model, "steps", [])]
        assert any("impute" in m for m in steps), "missing ages in X_train and no imputer in the model"


def check_model_uses_every_feature():
    """the model is fitted on the eight features, Age among them"""
    assert "Age" in features and len(features) == 8, features
    assert model.n_features_in_ == 8, model.n_features_in_
    assert list(X_train.columns) == features, list(X_train.columns)


def check_model_validated():
    """the model predicts every validation passenger, better than always answering 'died'"""
    import numpy as np

    assert len(val_pred) == len(y_val)
    truth = np.asarray(y_val)
    assert (np.asarray(val_pred) == truth).mean() > (truth == 0).mean(), "no better than chance"
