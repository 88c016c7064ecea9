"""What a fix of NBspecific_1 must achieve (docs/checks.md): run in the notebook's kernel after its last cell.

In the saved session the train/test split cell never ran, so training fails on X_train. A fix runs the split
before training (however the cells are ordered or counted), so that the random forest is fitted on the training
part of the data, with the test part held out.
"""


def check_split_made():
    """the data are split into disjoint training and test parts, together every row of X"""
    assert len(X_train) + len(X_test) == len(X), (len(X_train), len(X_test), len(X))
    assert set(X_train.index).isdisjoint(X_test.index)
    assert len(y_train) == len(X_train)


def check_model_fitted_on_training_part():
    """the random forest is fitted on the training part, with every feature of X"""
    assert hasattr(model, "estimators_"), "the model is not fitted"
    assert model.n_features_in_ == X.shape[1], model.n_features_in_
    assert list(model.classes_) == sorted(set(y_train)), list(model.classes_)
